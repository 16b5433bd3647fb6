"""Load and validate the preferences file, with errors a person can act on (file:line and why)."""

from __future__ import annotations

import os
import re
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from acp_tray.prefs.errors import plain_error
from acp_tray.prefs.model import Preferences, builtin_defaults
from acp_tray.prefs.template import DEFAULT_FILE
from acp_tray.private import FILE_MODE, make_dir


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


def parse_preferences(text: str, source: Path) -> Preferences:
    try:
        data: dict[str, Any] = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        position = _TOML_POSITION.search(str(exc))
        where = f"{source}:{position.group(1)}" if position else str(source)
        reason = _TOML_POSITION.sub("", str(exc)).strip()
        raise PreferencesError(f"{where}: TOML syntax error: {reason}") from None
    try:
        return Preferences.model_validate(data)
    except ValidationError as exc:
        problems = []
        for error in exc.errors():
            line = _key_line(text, tuple(error["loc"]))
            where = f"{source}:{line}" if line else str(source)
            problems.append(f"{where}: {plain_error(error, Preferences)}")
        raise PreferencesError("\n".join(problems)) from None


def read_preferences(path: Path) -> Preferences:
    """Read and validate `path`; every problem is a `PreferencesError` with file and line."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise PreferencesError(f"{path}: no such file") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise PreferencesError(f"{path}: cannot read: {exc}") from None
    return parse_preferences(text, path)


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
