"""Load and validate the preferences file, with errors a person can act on (file:line and why)."""

from __future__ import annotations

import hashlib
import io
import os
import re
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from acp_tray.files.private import FILE_MODE, make_dir
from acp_tray.prefs.errors import plain_error
from acp_tray.prefs.model import Preferences, builtin_defaults
from acp_tray.prefs.template import DEFAULT_FILE


class PreferencesError(Exception):
    """An invalid preferences file. `str()` is a complete message: file, line or field, reason."""


@dataclass(frozen=True)
class Loaded:
    prefs: Preferences
    source: Path | None  # None: built-in defaults (no file)
    created: bool = False  # the commented default file was written just now (first run)


_TOML_POSITION = re.compile(r"\(at line (\d+), column (\d+)\)")


_TABLE = re.compile(r"^\s*\[+\s*([^\]]+?)\s*\]+")
_KEY = re.compile(r"^\s*([A-Za-z0-9_.\-\"' ]+?)\s*=")


def _dotted(key: str) -> list[str]:
    return [part.strip().strip("\"'") for part in key.split(".")]


def _key_line(text: str, loc: tuple[str | int, ...]) -> int | None:
    """Best-effort line of the key at `loc`: the line whose table+key path shares most of it."""
    names = [str(p) for p in loc]
    table: list[str] = []
    best_line, best_score = None, 0
    for number, line in enumerate(text.splitlines(), start=1):
        header = _TABLE.match(line)
        if header:
            table = _dotted(header.group(1))
            path = table
        else:
            key = _KEY.match(line)
            if not key:
                continue
            path = table + _dotted(key.group(1))
        score = 0
        for have, want in zip(path, names, strict=False):
            if have != want:
                break
            score += 1
        if score > best_score:
            best_line, best_score = number, score
    return best_line


MAX_NESTING = 100  # arrays and inline tables inside each other; acp-tray's own settings need 3


def _skip_string(text: str, start: int) -> tuple[int, int]:
    """The index after the TOML string that starts at `start`, and the newlines it spans."""
    quote = text[start] * 3 if text.startswith(text[start] * 3, start) else text[start]
    index, lines = start + len(quote), 0
    while index < len(text) and not text.startswith(quote, index):
        if text[index] == "\\" and quote[0] == '"':  # an escape in a basic string: skip what it escapes
            index += 1
        if index < len(text) and text[index] == "\n":
            if len(quote) == 1:
                return index, lines  # a one-line string not closed: tomllib says so
            lines += 1
        index += 1
    return index + len(quote), lines


def too_deep(text: str) -> int | None:
    """The line where arrays and inline tables nest more than MAX_NESTING deep, or None. Checked
    before parsing: the standard library's parser recurses, and a deep enough file exhausts it."""
    depth, line, index = 0, 1, 0
    while index < len(text):
        char = text[index]
        if char in "\"'":
            index, lines = _skip_string(text, index)
            line += lines
            continue
        if char == "#":
            newline = text.find("\n", index)
            index = len(text) if newline < 0 else newline
            continue
        if char == "\n":
            line += 1
        elif char in "[{":
            depth += 1
            if depth > MAX_NESTING:
                return line
        elif char in "]}":
            depth = max(0, depth - 1)
        index += 1
    return None


def _nested_too_deeply(source: Path, line: int | None) -> PreferencesError:
    where = f"{source}:{line}" if line else str(source)
    return PreferencesError(
        f"{where}: arrays or tables are nested more than {MAX_NESTING} deep; acp-tray does not read such a file"
    )


def version_of(data: bytes) -> str:
    """A token for a file's bytes: it changes with any edit."""
    return hashlib.sha256(data).hexdigest()[:32]


def file_version(path: Path | None) -> str:
    """A token for the file's bytes as they are now: it changes with any edit ("" when there is none)."""
    if path is None:
        return ""
    try:
        return version_of(path.read_bytes())
    except OSError:
        return ""


def parse_preferences(text: str, source: Path) -> Preferences:
    deep = too_deep(text)
    if deep is not None:
        raise _nested_too_deeply(source, deep)
    try:
        data: dict[str, Any] = tomllib.loads(text)
    except RecursionError:  # dotted keys or tables deep enough
        raise _nested_too_deeply(source, None) from None
    except tomllib.TOMLDecodeError as exc:
        position = _TOML_POSITION.search(str(exc))
        where = f"{source}:{position.group(1)}" if position else str(source)
        reason = _TOML_POSITION.sub("", str(exc)).strip()
        raise PreferencesError(f"{where}: TOML syntax error: {reason}") from None
    try:
        return Preferences.model_validate(data)
    except RecursionError:
        raise _nested_too_deeply(source, None) from None
    except ValidationError as exc:
        problems = []
        for error in exc.errors():
            line = _key_line(text, tuple(error["loc"]))
            where = f"{source}:{line}" if line else str(source)
            problems.append(f"{where}: {plain_error(error, Preferences)}")
        raise PreferencesError("\n".join(problems)) from None


@dataclass(frozen=True)
class Snapshot:
    """The preferences file as read once: its version, its text and its settings, or why not."""

    version: str  # as `file_version` says it ("" when it cannot be read)
    text: str | None  # None: it cannot be read (`problem` says why)
    prefs: Preferences | None  # None: its settings are not right (`problem` says why)
    problem: str | None = None


def snapshot(path: Path) -> Snapshot:
    """`path` read once: its bytes' version, its text (line ends as a text file reads them) and its
    validated settings; every problem in the words `read_preferences` says it."""
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        return Snapshot("", None, None, f"{path}: no such file")
    except OSError as exc:
        return Snapshot("", None, None, f"{path}: cannot read: {exc}")
    try:
        text = io.TextIOWrapper(io.BytesIO(data), encoding="utf-8").read()
    except UnicodeDecodeError as exc:
        return Snapshot(version_of(data), None, None, f"{path}: cannot read: {exc}")
    try:
        return Snapshot(version_of(data), text, parse_preferences(text, path))
    except PreferencesError as exc:
        return Snapshot(version_of(data), text, None, str(exc))


def read_preferences(path: Path) -> Preferences:
    """Read and validate `path`; every problem is a `PreferencesError` with file and line."""
    read = snapshot(path)
    if read.prefs is None:
        raise PreferencesError(read.problem)
    return read.prefs


def write_default_file(path: Path) -> bool:
    """First run: create the commented default file. Never touches an existing file."""
    try:
        make_dir(path.parent)
        with os.fdopen(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, FILE_MODE), "w", encoding="utf-8") as handle:
            handle.write(DEFAULT_FILE)
    except FileExistsError:
        return False
    return True


def load_preferences(path: Path, *, explicit: bool) -> Loaded:
    """Load the preferences. The default file is created on first run (with the demo agent);
    a missing `--config` file is an error; an unwritable config dir means built-in defaults."""
    created = False
    if not explicit and not path.exists():
        try:
            created = write_default_file(path)
        except OSError:
            return Loaded(builtin_defaults(), None)
    return Loaded(read_preferences(path), path, created)
