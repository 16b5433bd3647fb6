"""How an entry acp-tray writes (the app-menu launcher, start on login) starts this installation
(`this_installation`): the command checked (a path with a control character or bytes that are not
UTF-8 cannot be written into an entry), started through `/usr/bin/env` where the format cannot name
the program itself, and quoted for a desktop entry's `Exec` (Desktop Entry Specification, "The Exec
key") or a systemd unit's `ExecStart` (systemd.syntax, systemd.service "Command lines").
`readback.py` reads them back the way the desktop does."""

from __future__ import annotations

import re
import sys
import sysconfig
import unicodedata
from pathlib import Path

from acp_tray.desktop.entry_file import EntryError

APP = "acp-tray"
DESCRIPTION = "Desktop companion for headless coding agents (Agent Client Protocol)"
ENV = "/usr/bin/env"

# Desktop Entry Specification, "The Exec key": these make an argument need quoting
_DESKTOP_RESERVED = re.compile(r"[\s\"'\\><~|&;$*?#()`]")
# GLib looks the program up before expanding `%%`: a program path with `%` is never found
_DESKTOP_UNNAMEABLE = re.compile(r"%")
_SYSTEMD_PLAIN = re.compile(r"^[A-Za-z0-9_@%+=:,./-]+$")
# systemd refuses quotes and backslashes in a program's path, and expands no `$$` there
_SYSTEMD_UNNAMEABLE = re.compile(r"[\"'\\$]")

_NAMED = {"\n": "a line break", "\r": "a carriage return", "\t": "a tab", "\0": "a NUL character"}


class UnusableCommandError(EntryError):
    """This installation's command cannot be written into an entry: the message says why."""


def _flaw(arg: str) -> str:
    """What in `arg` no entry can hold, in plain words ("" for nothing)."""
    for char in arg:
        if char in _NAMED:
            return _NAMED[char]
        if unicodedata.category(char) == "Cc":
            return f"a control character (U+{ord(char):04X})"
        if unicodedata.category(char) == "Cs":
            return "bytes that are not UTF-8"
    return ""


def this_installation(*, gui: bool = False) -> list[str]:
    """How to start `acp-tray run` from this installation, by absolute path (a venv or pipx install
    is not on the login session's PATH). `gui`: Windows' console-less entry point."""
    if getattr(sys, "frozen", False):  # a one-file build: the binary is the program
        return [sys.executable, "run"]
    scripts = Path(sysconfig.get_path("scripts"))
    name = APP + ("-gui" if gui else "") + (".exe" if sys.platform == "win32" else "")
    script = scripts / name
    if script.exists():
        return [str(script), "run"]
    python = Path(sys.executable)
    if gui and sys.platform == "win32" and (python.parent / "pythonw.exe").exists():
        python = python.parent / "pythonw.exe"
    return [str(python), "-m", "acp_tray", "run"]


def check(argv: list[str], what: str) -> None:
    """UnusableCommandError when `argv` cannot be written into `what` ("a launcher entry")."""
    for arg in argv:
        flaw = _flaw(arg)
        if flaw:
            shown = ascii(arg)[1:-1]
            raise UnusableCommandError(
                f"acp-tray is installed at a path with {flaw} ({shown}): cannot write {what}; "
                "install acp-tray at a path without it"
            )


def _through_env(argv: list[str], unnameable: re.Pattern[str], what: str) -> list[str]:
    """`argv`, or `/usr/bin/env` starting it when `what` cannot name its program itself."""
    check(argv, what)
    found = unnameable.search(argv[0]) if argv else None
    if found is None:
        return argv
    if "=" in argv[0]:  # env would take it for a variable to set
        raise UnusableCommandError(
            f"acp-tray is installed at a path with both {found[0]!r} and '=' ({argv[0]}): cannot write {what}; "
            "install acp-tray at a path without them"
        )
    return [ENV, *argv]


def desktop_command(argv: list[str], what: str = "a desktop entry") -> list[str]:
    """The argv a desktop entry's Exec starts for `argv`."""
    return _through_env(argv, _DESKTOP_UNNAMEABLE, what)


def systemd_command(argv: list[str]) -> list[str]:
    """The argv a systemd unit's ExecStart starts for `argv`."""
    return _through_env(argv, _SYSTEMD_UNNAMEABLE, "a systemd user unit")


def desktop_exec(argv: list[str], what: str = "a desktop entry") -> str:
    """An Exec value: arguments quoted per the spec, then escaped as a desktop-file string."""
    parts = []
    for arg in desktop_command(argv, what):
        arg = arg.replace("%", "%%")  # field codes
        if _DESKTOP_RESERVED.search(arg) or not arg:
            arg = '"' + re.sub(r'(["`$\\])', r"\\\1", arg) + '"'
        parts.append(arg)
    # the string escape rule applies first when reading, so every backslash is doubled here
    return " ".join(parts).replace("\\", "\\\\")


def _systemd_quote(arg: str) -> str:
    arg = arg.replace("%", "%%").replace("$", "$$")  # specifiers and variable expansion
    if _SYSTEMD_PLAIN.match(arg):
        return arg
    return '"' + arg.replace("\\", "\\\\").replace('"', '\\"') + '"'


def systemd_exec_start(argv: list[str]) -> str:
    """An ExecStart value: each argument quoted per systemd.syntax (the program has no `$`, quote or
    backslash to escape: such a program is started through `/usr/bin/env`)."""
    return " ".join(_systemd_quote(arg) for arg in systemd_command(argv))
