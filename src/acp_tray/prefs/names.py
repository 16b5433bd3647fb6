"""Agent names: which are allowed (they appear in commands a person pastes, in TOML keys and in
menus), and the commands acp-tray prints for pasting, every word quoted. Standard library only:
the CLI client checks a name before it asks the daemon."""

from __future__ import annotations

import re
import shlex
import sys
from collections.abc import Mapping, Sequence

from acp_tray.logs.redact import MASK, looks_secret, redact

NAME_MAX = 64
_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]*")
ALLOWED = "letters A-Z and a-z, digits, '-', '_' and '.', starting with a letter or digit"

# Windows: a word of these is the same to cmd.exe and PowerShell unquoted; inside double quotes
# neither expands anything but these (cmd.exe: %VAR%; PowerShell: $x, `, and its other quotes)
_WINDOWS_PLAIN = re.compile(r"[A-Za-z0-9_+=:./\\-]+")  # not @ or , (PowerShell splats, makes arrays)
_WINDOWS_UNQUOTABLE = re.compile('["%$`\u201c\u201d\u201e\x00-\x1f\x7f-\x9f]')
WINDOWS_UNSAFE_WORD = "(not safe to paste: see above)"


def agent_name_problem(name: str, what: str = "agent") -> str | None:
    """Why `name` cannot name an agent (or another `what`: a push target), or None when it can."""
    if not name:
        return f"{'an' if what[0] in 'aeiou' else 'a'} {what} name cannot be empty"
    if len(name) > NAME_MAX:
        return f"{what} name {name[:NAME_MAX]!r}… is longer than {NAME_MAX} characters"
    if not _NAME.fullmatch(name):
        return f"{what} name {name!r} is not allowed: use {ALLOWED}"
    return None


def _windows_word(word: str) -> str:
    if _WINDOWS_PLAIN.fullmatch(word):
        return word
    # a word neither shell can take literally is not printed: pasted, it would run something else
    return f'"{WINDOWS_UNSAFE_WORD if _WINDOWS_UNQUOTABLE.search(word) else word}"'


def shell_line(argv: Sequence[str], *, windows: bool | None = None) -> str:
    """`argv` as one command a person can paste into their shell, each word quoted so that the
    shell passes it on as it is and runs nothing else: POSIX shell quoting (`shlex.join`), or on
    Windows quoting that cmd.exe and PowerShell both take literally."""
    if windows if windows is not None else sys.platform == "win32":
        return " ".join(_windows_word(word) for word in argv)
    return shlex.join(argv)


def pasteable(*args: str) -> str:
    """`acp-tray ARGS...` as a person would paste it into their shell (see `shell_line`)."""
    return shell_line(["acp-tray", *args])


def shown_variables(sets: Mapping[str, str]) -> dict[str, str]:
    """The variables a command is run with, for showing: a secret-looking name's value masked, and
    any secret acp-tray knows masked in the others."""
    return {name: MASK if looks_secret(name) else redact(value) for name, value in sorted(sets.items())}


def shown_sets(sets: Mapping[str, str]) -> str:
    """' (it sets NAME=value …)', each quoted as one word and masked as `shown_variables`; '' for none."""
    values = [f"{name}={value}" for name, value in shown_variables(sets).items()]
    return f" (it sets {shell_line(values)})" if values else ""


def shown_command(argv: Sequence[str], sets: Mapping[str, str]) -> str:
    """`argv` quoted for pasting, then the variables it is run with (`shown_sets`)."""
    return shell_line(argv) + shown_sets(sets)
