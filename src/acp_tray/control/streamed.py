"""Streamed events on the wire and back, in one place: an event (control/replies.py, or
watch_events.py for `watch`) becomes the object its line carries (`wire_event`, the daemon's side),
and a line's object becomes the event its op declares again (`read_event`, the client's side), or
an EventError that says what is wrong with it. Standard library only, as the API itself."""

from __future__ import annotations

import dataclasses
import functools
import types
import typing
from collections.abc import Mapping
from typing import Any, Literal, TypeVar

E = TypeVar("E")


class EventError(ValueError):
    """A streamed event its op does not declare, or one with a field missing or of the wrong type."""


def wire_event(event: Any) -> dict[str, Any]:
    """The event as its line carries it: {"event": its kind, its fields...}."""
    message: dict[str, Any] = {"event": type(event).kind}
    for spec in dataclasses.fields(event):
        value = getattr(event, spec.name)
        if spec.metadata.get("spread"):
            message.update(value)
        else:
            message[spec.name] = value
    return message


def read_event(op: str, declared: tuple[type[E], ...], message: Mapping[str, Any]) -> E:
    """The event `message` carries, as one of the types `op` declares; EventError when it is none
    of them, or a field is missing or of the wrong type (unknown keys are ignored)."""
    kind = message.get("event")
    cls = next((each for each in declared if getattr(each, "kind", None) == kind), None)
    if cls is None:
        streams = ", ".join(repr(getattr(each, "kind", "")) for each in declared) or "none"
        raise EventError(f"`{op}` streams no {ascii(kind)[:40]} event (its events: {streams})")
    values: dict[str, Any] = {}
    for name, hint, spread in _fields(cls):
        if spread:
            value = {key: message[key] for key in _keys(hint) if key in message}
        elif name in message:
            value = message[name]
        else:
            raise EventError(f"a {kind!r} event of `{op}` without its {name!r}")
        wrong = _wrong(hint, value)
        if wrong is not None:
            raise EventError(f"a {kind!r} event of `{op}` with a wrong {wrong or name!r}")
        values[name] = value
    return cls(**values)


_FIELDS: dict[type[Any], tuple[tuple[str, Any, bool], ...]] = {}


def _fields(cls: type[Any]) -> tuple[tuple[str, Any, bool], ...]:
    """An event type's fields: (name, type, spread), worked out once (a prompt streams many chunks)."""
    if cls not in _FIELDS:
        hints = typing.get_type_hints(cls)
        specs = dataclasses.fields(cls)
        _FIELDS[cls] = tuple((spec.name, hints[spec.name], bool(spec.metadata.get("spread"))) for spec in specs)
    return _FIELDS[cls]


@functools.cache
def _keys(table: Any) -> dict[str, Any]:
    """A TypedDict's keys and their types."""
    return typing.get_type_hints(table)


def _wrong(hint: Any, value: object) -> str | None:
    """None when `value` fits `hint` (its outer shape: a list's items are not looked into); else
    the key of a spread table that does not fit, or "" for the value itself."""
    if typing.is_typeddict(hint):
        if not isinstance(value, dict):
            return ""
        hints = _keys(hint)
        return next((key for key, item in value.items() if key in hints and not _fits(hints[key], item)), None)
    return None if _fits(hint, value) else ""


def _fits(hint: Any, value: object) -> bool:
    origin = typing.get_origin(hint)
    if origin in (types.UnionType, typing.Union):
        return any(_fits(member, value) for member in typing.get_args(hint))
    if origin is Literal:
        return value in typing.get_args(hint)
    if hint is type(None):
        return value is None
    if hint is int:
        return isinstance(value, int) and not isinstance(value, bool)
    if hint is float:
        return isinstance(value, int | float) and not isinstance(value, bool)
    if hint in (str, bool):
        return isinstance(value, hint)
    if origin is list:
        return isinstance(value, list)
    if origin is dict or typing.is_typeddict(hint):
        return isinstance(value, dict)
    raise TypeError(f"no check for events' fields of type {hint!r}")  # a declaration needs one here
