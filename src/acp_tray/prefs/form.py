"""The preferences as a form shows them, and the changes a form sends (the window's Preferences page,
through the control API's `prefs.get` and `prefs.set`): checked by the same model, in the same plain
words as the file, each problem keyed by its setting (`severity.info.route`)."""

from __future__ import annotations

import functools
import tomllib
import typing
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime, time
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, TypeAdapter, ValidationError

from acp_tray.prefs.errors import annotation_at, model_at, plain_error, unwrap
from acp_tray.prefs.load import parse_preferences
from acp_tray.prefs.model import Preferences

FormValue = str | bool | list[str]  # text (numbers and times too), a checkbox, checkboxes
Key = tuple[str, ...]


def form_values(prefs: Preferences) -> dict[str, FormValue]:
    """Every setting by its dotted key, as a form shows it: text, true/false, or a list of text. A
    table of strings (an agent's `env`, `headers`) gives its names only: its values may be secrets."""
    values: dict[str, FormValue] = {}
    _flatten(prefs, (), values)
    return values


@functools.cache
def default_values() -> dict[str, FormValue]:
    """`form_values` of the built-in defaults (no agents), worked out once (not to be changed)."""
    return form_values(Preferences())


def _flatten(value: object, path: Key, into: dict[str, FormValue]) -> None:
    if isinstance(value, BaseModel):
        for name in type(value).model_fields:
            _flatten(getattr(value, name), (*path, name), into)
    elif isinstance(value, dict) and _of_tables(path):
        for name, item in value.items():
            _flatten(item, (*path, str(name)), into)
    elif isinstance(value, dict):
        into[".".join(path)] = sorted(str(name) for name in value)
    else:
        into[".".join(path)] = _shown(value)


def _of_tables(path: Key) -> bool:
    """Whether the setting at `path` is a table of tables (`agents`), not of strings (`env`)."""
    target = unwrap(annotation_at(Preferences, path))
    of = unwrap(typing.get_args(target)[1]) if typing.get_origin(target) is dict else None
    return isinstance(of, type) and issubclass(of, BaseModel)


def _shown(value: object) -> FormValue:
    if value is None:
        return ""
    if isinstance(value, bool):
        return value
    if isinstance(value, list):
        return [str(item) for item in value]
    if isinstance(value, time):
        return f"{value:%H:%M}"
    if isinstance(value, datetime):
        return value.isoformat(timespec="minutes")
    if isinstance(value, float):
        return f"{value:g}"
    return str(value)


def choices(keys: list[str]) -> dict[str, list[str]]:
    """The settings among `keys` that are one of a few words (or a list of them), with those words."""
    found: dict[str, list[str]] = {}
    for key in keys:
        target = unwrap(annotation_at(Preferences, tuple(key.split("."))))
        if typing.get_origin(target) is list:
            target = unwrap(typing.get_args(target)[0])
        if typing.get_origin(target) is Literal:
            found[key] = [str(choice) for choice in typing.get_args(target)]
    return found


@dataclass(frozen=True)
class Checked:
    """What a form's changes lead to: the problems by setting, or the values to write (None: remove)."""

    problems: dict[str, str] = field(default_factory=dict)
    writes: dict[Key, object] = field(default_factory=dict)


def from_fields(fields: Mapping[str, Sequence[str]], values: Mapping[str, FormValue]) -> dict[str, FormValue]:
    """A form's fields (each name with the texts a browser sent for it) as changes: each setting of
    `values` (the form's settings) the form sent, as the kind of value it is (a checkbox: its last
    value, after the hidden "false"; checkboxes: those ticked; text: as typed)."""
    found: dict[str, FormValue] = {}
    for key, current in values.items():
        if key not in fields:
            continue
        sent = [str(item) for item in fields[key]]
        if isinstance(current, bool):
            found[key] = bool(sent) and sent[-1] == "true"
        elif isinstance(current, list):
            found[key] = [item for item in sent if item]
        else:
            found[key] = sent[-1] if sent else ""
    return found


def check_changes(
    text: str, source: Path, changes: Mapping[str, FormValue], before: Mapping[str, FormValue]
) -> Checked:
    """The file's `text` with `changes` (dotted keys → form values) validated as a whole by the
    model; what is to be written is only the settings whose value changes from `before` (the
    file's form values; none when a value in it is wrong: the form's save may be what mends it)."""
    try:
        data: dict[str, Any] = tomllib.loads(text)
    except (tomllib.TOMLDecodeError, RecursionError):
        parse_preferences(text, source)  # raises PreferencesError with the file's line and reason
        raise
    problems: dict[str, str] = {}
    for key, raw in changes.items():
        path = tuple(key.split("."))
        problem = _not_settable(path)
        if problem is not None:
            problems[key] = problem
        else:
            _put(data, path, _typed(path, raw))
    try:
        after = Preferences.model_validate(data)
    except ValidationError as exc:
        for error in exc.errors():
            key = ".".join(str(part) for part in error["loc"] if not isinstance(part, int))
            problems.setdefault(key, plain_error(error, Preferences))
    if problems:
        return Checked(problems=problems)
    now = form_values(after)
    return Checked(writes={tuple(k.split(".")): _toml(_at(after, k)) for k in changes if now.get(k) != before.get(k)})


def _not_settable(path: Key) -> str | None:
    target = annotation_at(Preferences, path)
    where = f"`{path[-1]}` in [{'.'.join(path[:-1])}]" if len(path) > 1 else f"`{path[0]}`"
    if target is None:
        return f"{where} is not a setting"
    target = unwrap(target)
    if typing.get_origin(target) is dict or (isinstance(target, type) and issubclass(target, BaseModel)):
        return f"{where} is a table: change it in the file itself"
    return None


def _typed(path: Key, raw: FormValue) -> object:
    """A form's text as the setting's type where it reads as one ("5" → 5, "2" → the protocol 2);
    otherwise as it is, for the model to say what is wrong with it. "" for a setting that may be
    left out (an agent's route override, `cwd`) leaves it out."""
    if not isinstance(raw, str):
        return raw
    holder = model_at(Preferences, path[:-1])
    spec = holder.model_fields.get(path[-1]) if holder is not None else None
    if raw == "" and spec is not None and spec.default is None:
        return None
    target = unwrap(annotation_at(Preferences, path))
    if typing.get_origin(target) is Literal:
        return next((choice for choice in typing.get_args(target) if str(choice) == raw), raw)
    if target in (int, float, bool):
        try:
            return TypeAdapter(target).validate_python(raw.strip())
        except ValidationError:
            return raw
    return raw


def _put(data: dict[str, Any], path: Key, value: object) -> None:
    table = data
    for name in path[:-1]:
        inner = table.setdefault(name, {})
        if not isinstance(inner, dict):  # a key where a table belongs: the model says so
            return
        table = inner
    if value is None:
        table.pop(path[-1], None)
    else:
        table[path[-1]] = value


def _at(prefs: Preferences, key: str) -> object:
    value: object = prefs
    for name in key.split("."):
        value = value.get(name) if isinstance(value, dict) else getattr(value, name, None)
    return value


def _toml(value: object) -> object:
    """A model's value as the file writes it: times as "HH:MM", paths as text, 30.0 as 30."""
    if isinstance(value, time) and not isinstance(value, datetime):
        return f"{value:%H:%M}"
    if isinstance(value, Path):
        return str(value)
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, list):
        return list(value)
    return value
