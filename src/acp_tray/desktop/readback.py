"""An entry acp-tray has just written, read back the way the desktop will read it, before it says
"written": a desktop entry through GLib (what GNOME, GTK and most session managers start entries
with) when PyGObject is there, else as the Desktop Entry Specification reads it; a systemd unit's
`ExecStart` as systemd.syntax reads it, and by `systemd-analyze verify` where that is installed.
Each check returns what is wrong in plain words ("" when the entry starts exactly the command)."""

from __future__ import annotations

import re
import subprocess
from collections.abc import Callable
from pathlib import Path

Runner = Callable[[list[str]], "subprocess.CompletedProcess[str]"]

_STRING_ESCAPES = {"s": " ", "n": "\n", "t": "\t", "r": "\r", "\\": "\\"}
_QUOTED_ESCAPES = {char: char for char in '"`$\\'}
_C_ESCAPES = {"\\": "\\", '"': '"', "'": "'", "n": "\n", "t": "\t", "r": "\r", "s": " "}
_SYSTEMD_VARIABLE = re.compile(r"\$(?!\$)")


def _field_codes(value: str) -> str | None:
    """`%%` as `%`, as GLib expands an Exec line; any other field code: None (acp-tray writes none)."""
    out, i = [], 0
    while i < len(value):
        if value[i] == "%" and i + 1 < len(value):
            if value[i + 1] != "%":
                return None
            i += 1
        out.append(value[i])
        i += 1
    return "".join(out)


def _spec_string(raw: str) -> str | None:
    """A desktop-file string value unescaped (`\\s`, `\\n`, `\\t`, `\\r`, `\\\\`); None when invalid."""
    out, i = [], 0
    while i < len(raw):
        if raw[i] == "\\":
            escaped = _STRING_ESCAPES.get(raw[i + 1 : i + 2])
            if escaped is None:
                return None
            out.append(escaped)
            i += 2
            continue
        out.append(raw[i])
        i += 1
    return "".join(out)


def _words(value: str, quotes: str, escapes: dict[str, str], *, escapes_unquoted: bool) -> list[str] | None:
    """`value` split into words at spaces and tabs, `quotes` grouping, a backslash escaping one of
    `escapes` (inside quotes, and outside too when `escapes_unquoted`). None when a quote is left
    open or a backslash escapes something else (acp-tray writes neither)."""
    words: list[str] = []
    word: str | None = None
    quote = ""
    chars = iter(value)
    for char in chars:
        if char == "\\" and (quote or escapes_unquoted):
            escaped = escapes.get(next(chars, ""))
            if escaped is None:
                return None
            word = (word or "") + escaped
        elif char == quote:
            quote = ""
        elif quote or char not in quotes + " \t":
            word = (word or "") + char
        elif char in quotes:
            quote, word = char, word or ""
        elif word is not None:
            words, word = [*words, word], None
    if quote:
        return None
    return words if word is None else [*words, word]


def _spec_exec(path: Path, group: str) -> list[str] | None:
    """The argv of `group`'s Exec in the desktop file `path`, read as the specification says."""
    current = ""
    for line in path.read_text(encoding="utf-8").split("\n"):
        if line.startswith("["):
            current = line.strip()[1:-1]
        elif current == group and re.match(r"Exec\s*=", line):
            value = _spec_string(line.split("=", 1)[1].strip())
            expanded = None if value is None else _field_codes(value)
            return None if expanded is None else _words(expanded, '"', _QUOTED_ESCAPES, escapes_unquoted=False)
    return None


def _glib_exec(path: Path, group: str) -> tuple[list[str] | None, str]:
    """The argv GLib starts for `group` of the desktop file `path`, and why it would not start it."""
    import gi

    gi.require_version("Gio", "2.0")
    from gi.repository import Gio, GLib

    try:
        Gio.DesktopAppInfo.new_from_filename(str(path))
    except TypeError:  # GLib refuses the entry: its program is not found, or its Exec does not parse
        return None, "GLib does not accept it (it cannot find the program it names)"
    keyfile = GLib.KeyFile()
    try:
        keyfile.load_from_file(str(path), GLib.KeyFileFlags.NONE)
        expanded = _field_codes(keyfile.get_string(group, "Exec"))
        return (None, "") if expanded is None else (list(GLib.shell_parse_argv(expanded)[1]), "")
    except GLib.Error as exc:
        return None, f"GLib cannot read it ({exc.message})"


def _desktop_exec(path: Path, group: str) -> tuple[list[str] | None, str]:
    try:
        return _glib_exec(path, group)
    except (ImportError, ValueError):  # no PyGObject, or no GLib typelibs (gi: "Namespace Gio not available"):
        return _spec_exec(path, group), ""  # read as the specification says


def desktop_problem(path: Path, expected: dict[str, list[str]]) -> str:
    """What is wrong with the desktop file `path` whose groups should each start an argv."""
    for group, argv in expected.items():
        read, refused = _desktop_exec(path, group)
        if refused:
            return refused
        if read != argv:
            return f"its {group} would start {read!r} instead of {argv!r}"
    return ""


def _systemd_word(word: str, program: bool) -> str | None:
    """A word of ExecStart after its specifiers (`%%`) and, but in the program, variables (`$$`)."""
    specified = _field_codes(word)
    if specified is None or program:
        return specified
    return None if _SYSTEMD_VARIABLE.search(specified.replace("$$", "")) else specified.replace("$$", "$")


def systemd_argv(value: str) -> list[str] | None:
    """An ExecStart value read as systemd.syntax says: words split at whitespace, single or double
    quotes, C-style escapes; then specifiers and variables. None where acp-tray writes nothing like it."""
    if value[:1] in tuple("@-:+!"):  # an ExecStart prefix
        return None
    words = _words(value, "\"'", _C_ESCAPES, escapes_unquoted=True)
    if words is None:
        return None
    read = [_systemd_word(w, program=n == 0) for n, w in enumerate(words)]
    return None if None in read else [w for w in read if w is not None]


def unit_problem(path: Path, expected: list[str], runner: Runner) -> str:
    """What is wrong with the systemd unit `path` that should start `expected`."""
    lines = [line for line in path.read_text(encoding="utf-8").split("\n") if line.startswith("ExecStart=")]
    read = systemd_argv(lines[0].removeprefix("ExecStart=")) if len(lines) == 1 else None
    if read != expected:
        return f"its ExecStart would start {read!r} instead of {expected!r}"
    verified = runner(["systemd-analyze", "verify", "--man=no", str(path)])
    if verified.returncode not in (0, 127):  # 127: systemd-analyze is not installed
        return f"systemd-analyze verify refuses it ({verified.stderr.strip() or verified.stdout.strip()})"
    return ""
