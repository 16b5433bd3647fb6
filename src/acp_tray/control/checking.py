"""The one place where a control request's arguments are checked against their declaration
(control/api.py): a missing, null or wrong-typed argument is an ArgumentError that names it."""

from __future__ import annotations

import dataclasses
import types
import typing
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Literal, TypeVar

from acp_tray.control.errors import ArgumentError

if TYPE_CHECKING:
    from _typeshed import DataclassInstance

A = TypeVar("A", bound="DataclassInstance")  # an op's `*Args` dataclass


def parse_args(cls: type[A], raw: Mapping[str, Any]) -> A:
    values, hints = {}, typing.get_type_hints(cls)
    for spec in dataclasses.fields(cls):
        value: Any = raw.get(spec.name)
        hint = hints[spec.name]
        optional = _optional(hint)
        defaults = (spec.default, spec.default_factory)
        if value is None and (optional or any(d is not dataclasses.MISSING for d in defaults)):
            continue  # absent or null: its default
        expected = optional or hint
        if not _fits(expected, value, spec.metadata):
            raise ArgumentError(f"{spec.name!r} must be {_described(expected, spec.metadata)}")
        values[spec.name] = float(value) if expected is float else value
    return cls(**values)  # its own rules (which arguments go together) may raise ArgumentError


def _optional(hint: Any) -> Any:
    """`X` for `X | None` (also `Literal[...] | None`, a `typing.Union`), else None."""
    if typing.get_origin(hint) in (types.UnionType, typing.Union) and type(None) in typing.get_args(hint):
        (inner,) = [arg for arg in typing.get_args(hint) if arg is not type(None)]
        return inner
    return None


def _fits(hint: Any, value: object, metadata: Mapping[str, Any]) -> bool:
    if hint is str:
        return isinstance(value, str) and value != ""
    if hint is bool:
        return isinstance(value, bool)
    if hint is float or hint is int:
        low, high = metadata.get("range", (float("-inf"), float("inf")))
        number = int if hint is int else int | float
        return isinstance(value, number) and not isinstance(value, bool) and low <= value <= high
    if typing.get_origin(hint) is Literal:
        return isinstance(value, str) and value in typing.get_args(hint)
    if typing.get_origin(hint) is list:
        return isinstance(value, list) and bool(value) and all(isinstance(item, str) for item in value)
    if typing.get_origin(hint) is dict:
        of = typing.get_args(hint)[1]
        return isinstance(value, dict) and all(isinstance(k, str) and _is(of, v) for k, v in value.items())
    raise TypeError(f"no check for arguments of type {hint!r}")  # a declaration above needs one


def _is(hint: Any, value: object) -> bool:
    """A table's value: a string (empty too), true/false, a list of strings (empty too), or one of those."""
    if typing.get_origin(hint) in (types.UnionType, typing.Union):
        return any(_is(member, value) for member in typing.get_args(hint))
    if typing.get_origin(hint) is list:
        return isinstance(value, list) and all(isinstance(item, str) for item in value)
    return isinstance(value, hint)


def _described(hint: Any, metadata: Mapping[str, Any]) -> str:
    if hint is float and "range" in metadata:
        low, high = metadata["range"]
        return f"a number of {metadata.get('unit', 'units')} from {low:g} to {high:g}"
    if hint is int and "range" in metadata:
        low, high = metadata["range"]
        return f"a whole number from {low} to {high}"
    if typing.get_origin(hint) is Literal:
        return "one of " + ", ".join(f"{choice!r}" for choice in typing.get_args(hint))
    return {str: "a non-empty string", bool: "true or false", float: "a number", int: "a whole number"}.get(hint) or (
        "a non-empty list of strings" if typing.get_origin(hint) is list else _table_of(hint)
    )


def _table_of(hint: Any) -> str:
    of = typing.get_args(hint)[1]
    if typing.get_origin(of) is list:
        return "a table of lists of strings"
    return "a table of strings" if of is str else "a table of strings, true/false or lists of strings"
