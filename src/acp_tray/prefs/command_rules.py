"""What a local agent's command and `env` may hold: what the OS can hand to a new process (no NUL
anywhere, no `=` in a variable's name) and the preferences file can keep (UTF-8 text, so no lone
surrogate from bytes a shell passed undecoded). One rule for every way in: the preferences file,
the control API's `agents.add`, a registry entry. And whether a new agent's program is there to be
run (`program_problem`: `agents add` and the window's form), where a program is found with the
environment it runs in (`find_program`: what a terminal sign-in runs, shown and run by that path),
and whether it fetches the agent when it starts (`fetches_on_start`). Standard library only."""

from __future__ import annotations

import os
import shutil
from collections.abc import Mapping, Sequence
from pathlib import Path

SHOWN = 60  # characters of a bad value quoted in a message
PACKAGE_RUNNERS = frozenset({"npx", "uvx", "bunx", "pnpx"})  # may spend a first start downloading the agent


def _shown(text: str) -> str:
    quoted = repr(text)
    return quoted if len(quoted) <= SHOWN else quoted[: SHOWN - 1] + "…"


def text_problem(text: str, *, quoted: bool = True) -> str | None:
    """Why `text` cannot be given to a program or kept in the preferences file, or None
    (`quoted`: the message shows it; not for a value that may be a secret)."""
    shown = f"{_shown(text)} " if quoted else ""
    if "\0" in text:
        return f"{shown}holds a NUL character (\\x00), which no program can be given"
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return f"{shown}is not valid UTF-8 text (undecodable bytes?), which the preferences file cannot keep"
    return None


def command_problem(words: Sequence[str], *, args_only: bool = False) -> str | None:
    """Why the command `words` (`args_only`: its arguments, without the program) cannot be run, or None."""
    for number, word in enumerate(words):
        problem = text_problem(word)
        if problem is not None:
            which = f"argument {number + 1}" if args_only else "the program" if number == 0 else f"argument {number}"
            return f"{which}: {problem}"
    return None


def env_problem(env: Mapping[str, str]) -> str | None:
    """Why the variables `env` cannot be given to a program, or None."""
    for name, value in env.items():
        if not name:
            return "an environment variable's name cannot be empty"
        if "=" in name:
            return f"environment variable name {_shown(name)} holds '=', which ends a name: no program can be given it"
        problem = text_problem(name)
        if problem is not None:
            return f"environment variable name {problem}"
        problem = text_problem(value, quoted=False)  # a value may be an API key: never quoted
        if problem is not None:
            return f"the value of {name} {problem}"
    return None


def program_problem(program: str, cwd: Path) -> str | None:
    """Why `program` (a path, relative to `cwd`, or a name looked up on the PATH) cannot be started,
    or None. `acp-tray` runs itself, whatever PATH says (prefs/model.py)."""
    if program == "acp-tray":
        return None
    if os.sep in program or (os.altsep and os.altsep in program):
        found = cwd / program
        if not found.exists():
            return f"there is no program {str(found)!r}: the file does not exist"
        if found.is_dir() or not os.access(found, os.X_OK):
            return f"{str(found)!r} is not a program that can be run (not an executable file)"
        return None
    if shutil.which(program) is None:
        return f"there is no program called {program!r}: it is not installed, or not on the PATH"
    return None


def find_program(program: str, cwd: str, env: Mapping[str, str]) -> str | None:
    """The full path `program` runs as with `env` in `cwd`: a name without a directory is looked up
    in that environment's PATH (not this process's), a relative path is taken from `cwd`."""
    if os.path.dirname(program):
        return shutil.which(os.path.join(cwd, program))
    return shutil.which(program, path=env.get("PATH", os.defpath))


def fetches_on_start(command: Sequence[str] | None) -> bool:
    """Whether `command` runs its agent through a package runner (npx, uvx…), which downloads the
    package on the first start: slow to answer then, not silent for good."""
    if not command:
        return False
    name = Path(command[0]).name.lower()
    for suffix in (".cmd", ".exe", ".bat"):
        name = name.removesuffix(suffix)
    return name in PACKAGE_RUNNERS
