"""What a local agent's command and `env` may hold: what the OS can hand to a new process (no NUL
anywhere, no `=` in a variable's name) and the preferences file can keep (UTF-8 text, so no lone
surrogate from bytes a shell passed undecoded). One rule for every way in: the preferences file,
the control API's `agents.add`, a registry entry. Standard library only."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

SHOWN = 60  # characters of a bad value quoted in a message


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
