"""Preference errors in plain words: from pydantic's error records to "unknown key `rout` in
[severity.info]; did you mean `route`?", "`burst` in [rate_limit] must be at least 1, not 0"."""

from __future__ import annotations

import types
import typing
from typing import Any

from pydantic import BaseModel
from pydantic_core import ErrorDetails

_TYPES = {
    "int_parsing": "a whole number",
    "int_type": "a whole number",
    "int_from_float": "a whole number",
    "float_parsing": "a number",
    "float_type": "a number",
    "bool_parsing": "true or false",
    "bool_type": "true or false",
    "string_type": 'text in quotes ("...")',
    "list_type": 'a list, like ["a", "b"]',
    "dict_type": "a table",
    "model_type": "a table",
    "model_attributes_type": "a table",
    "datetime_type": "a date and time, like 2026-12-01T08:00:00+01:00",
    "datetime_parsing": "a date and time, like 2026-12-01T08:00:00+01:00",
    "datetime_from_date_parsing": "a date and time, like 2026-12-01T08:00:00+01:00",
    "time_type": 'a time of day, like "08:00"',
    "time_parsing": 'a time of day, like "08:00"',
}
_BOUNDS = {
    "greater_than_equal": "at least",
    "greater_than": "more than",
    "less_than_equal": "at most",
    "less_than": "less than",
}


def model_at(model: type[BaseModel], path: tuple[str | int, ...]) -> type[BaseModel] | None:
    """The model class that holds the table at `path` (None when it is not a model: a dict's values...)."""
    current = annotation_at(model, path)
    return current if isinstance(current, type) and issubclass(current, BaseModel) else None


def _is_table(model: type[BaseModel], path: tuple[str | int, ...]) -> bool:
    current = annotation_at(model, path)
    return typing.get_origin(current) is dict or (isinstance(current, type) and issubclass(current, BaseModel))


def annotation_at(model: type[BaseModel], path: tuple[str | int, ...]) -> Any:
    current: Any = model
    for part in path:
        if isinstance(current, type) and issubclass(current, BaseModel):
            field = current.model_fields.get(str(part))
            if field is None:
                return None
            current = unwrap(field.annotation)
        elif typing.get_origin(current) is dict:
            current = unwrap(typing.get_args(current)[1])
        else:
            return None
    return current


def unwrap(annotation: Any) -> Any:
    """`X | None` and `Annotated[X, ...]` → X."""
    while True:
        origin = typing.get_origin(annotation)
        if origin is typing.Annotated:
            annotation = typing.get_args(annotation)[0]
        elif origin in (typing.Union, types.UnionType):
            members = [a for a in typing.get_args(annotation) if a is not type(None)]
            if len(members) != 1:
                return annotation
            annotation = members[0]
        else:
            return annotation


def _table(path: tuple[str | int, ...]) -> str:
    return f"[{'.'.join(str(p) for p in path)}]"


def _in(path: tuple[str | int, ...]) -> str:
    return f"in {_table(path)}" if path else "at the top level"


def _shown(value: object) -> str:
    if isinstance(value, str):
        return f'"{value}"'
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return f"{value:g}"
    text = repr(value)
    return text if len(text) <= 60 else text[:60] + "…"


def _close(word: object, choices: list[str]) -> str:
    import difflib  # only for a file with a mistake: the daemon that reads a good one does without it

    match = difflib.get_close_matches(str(word), choices, n=1, cutoff=0.6)
    return f"; did you mean `{match[0]}`?" if match else ""


def plain_error(error: ErrorDetails, model: type[BaseModel]) -> str:
    """One pydantic error as a sentence that names the key, its table, and what is wrong with it."""
    loc = tuple(error["loc"])
    item = ""
    if len(loc) > 1 and isinstance(loc[-1], int):  # a list's item: "item 2 of `days` in [...]"
        item, loc = f"item {loc[-1] + 1} of ", loc[:-1]
    key, table = (loc[-1], loc[:-1]) if loc else ("", ())
    kind = error["type"]
    context: dict[str, Any] = dict(error.get("ctx") or {})
    value = error.get("input")
    what = f"{item}`{key}` {_in(table)}" if loc else "the file"
    if kind == "extra_forbidden":
        holder = model_at(model, table)
        known = sorted(holder.model_fields) if holder is not None else []
        hint = _close(key, known) or (f"; known keys: {', '.join(known)}" if known else "")
        return f"unknown key `{key}` {_in(table)}{hint}"
    if kind == "missing":
        return f"`{key}` is missing {_in(table)}"
    if kind in _BOUNDS:
        bound = next(iter(context.values()), "?")
        return f"{what} must be {_BOUNDS[kind]} {_shown(bound)}, not {_shown(value)}"
    if kind == "literal_error":
        choices = [c.strip().strip("'") for c in str(context.get("expected", "")).replace(" or ", ", ").split(",")]
        listed = ", ".join(f'"{c}"' for c in choices if c)
        return f"{what} must be one of {listed}, not {_shown(value)}{_close(value, choices)}"
    if kind == "too_short":
        return f"{what} must not be empty"
    if kind in _TYPES:
        return f"{what} must be {_TYPES[kind]}, not {_shown(value)}"
    message = error["msg"].removeprefix("Value error, ")  # our own validators' words
    return f"{_table(loc)}: {message}" if loc and _is_table(model, loc) else f"{what}: {message}"
