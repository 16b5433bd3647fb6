"""An answer to a form question checked and typed against its restricted schema: text as typed
(the CLI's FIELD=VALUE, a web form) or JSON values become the `content` sent, or an AnswerError
says in plain words what is wrong. Pure."""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Mapping
from datetime import date, datetime
from urllib.parse import urlsplit

from acp_tray.protocol.elicitation import FormField, Value

VALUE_KEPT = 10_000  # characters of one typed value
TRUE_WORDS = ("true", "yes", "y", "on", "1")
FALSE_WORDS = ("false", "no", "n", "off", "0")


class AnswerError(ValueError):
    """What is wrong with an answer, naming the field, in words a person can act on."""


def _choices_text(field: FormField) -> str:
    return ", ".join(c.value if c.value == c.label else f"{c.value} ({c.label})" for c in field.choices)


def _choice(field: FormField, text: str) -> str:
    for choice in field.choices:
        if text == choice.value:
            return choice.value
    folded = text.casefold()
    for choice in field.choices:
        if folded in (choice.value.casefold(), choice.label.casefold()):
            return choice.value
    raise AnswerError(f"{field.label}: {text!r} is not one of the choices: {_choices_text(field)}")


def _format_ok(kind: str, text: str) -> bool:
    try:
        if kind == "email":
            local, at, domain = text.partition("@")
            return bool(local and at and "." in domain and " " not in text)
        if kind == "uri":
            return bool(urlsplit(text).scheme)
        if kind == "date":
            date.fromisoformat(text)
        elif kind == "date-time":
            datetime.fromisoformat(text)
    except ValueError:
        return False
    return True


def _string(field: FormField, value: object) -> str:
    if not isinstance(value, str):
        raise AnswerError(f"{field.label}: give text")
    if field.choices:
        return _choice(field, value)
    n = len(value)
    if field.min_length is not None and n < field.min_length:
        raise AnswerError(f"{field.label}: at least {field.min_length} characters, please (got {n})")
    if field.max_length is not None and n > field.max_length:
        raise AnswerError(f"{field.label}: at most {field.max_length} characters, please (got {n})")
    if field.format and not _format_ok(field.format, value):
        raise AnswerError(f"{field.label}: {value[:80]!r} is not a valid {field.format}")
    if field.pattern:
        try:
            fits = re.search(field.pattern, value) is not None
        except re.error:
            fits = True  # the agent's pattern is broken: the agent checks its own answer
        if not fits:
            raise AnswerError(f"{field.label}: {value[:80]!r} is not in the form the agent asks for")
    return value


def _bounded(field: FormField, number: float) -> None:
    if field.minimum is not None and number < field.minimum:
        raise AnswerError(f"{field.label}: at least {field.minimum:g}, please (got {number:g})")
    if field.maximum is not None and number > field.maximum:
        raise AnswerError(f"{field.label}: at most {field.maximum:g}, please (got {number:g})")


def _integer(field: FormField, value: object) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, str)):
        raise AnswerError(f"{field.label}: give a whole number")
    try:
        number = int(value.strip()) if isinstance(value, str) else value
    except ValueError:
        raise AnswerError(f"{field.label}: {str(value)[:80]!r} is not a whole number") from None
    _bounded(field, number)
    return number


def _number(field: FormField, value: object) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float, str)):
        raise AnswerError(f"{field.label}: give a number")
    try:
        number = float(value.strip()) if isinstance(value, str) else float(value)
    except ValueError:
        raise AnswerError(f"{field.label}: {str(value)[:80]!r} is not a number") from None
    if not math.isfinite(number):
        raise AnswerError(f"{field.label}: give a finite number")
    _bounded(field, number)
    return number


def _boolean(field: FormField, value: object) -> bool:
    if isinstance(value, bool):
        return value
    word = value.strip().casefold() if isinstance(value, str) else ""
    if word in TRUE_WORDS:
        return True
    if word in FALSE_WORDS:
        return False
    raise AnswerError(f"{field.label}: answer yes or no (true or false)")


def _array(field: FormField, value: object) -> list[str]:
    if isinstance(value, str):
        items = [part.strip() for part in value.split(",") if part.strip()]
    elif isinstance(value, list) and all(isinstance(v, str) for v in value):
        items = [v for v in value if v]
    else:
        raise AnswerError(f"{field.label}: give a list of choices (separated by commas)")
    chosen = list(dict.fromkeys(_choice(field, item) if field.choices else item for item in items))
    if field.min_length is not None and len(chosen) < field.min_length:
        raise AnswerError(f"{field.label}: choose at least {field.min_length}")
    if field.max_length is not None and len(chosen) > field.max_length:
        raise AnswerError(f"{field.label}: choose at most {field.max_length}")
    return chosen


_TYPED: dict[str, Callable[[FormField, object], Value]] = {
    "string": _string,
    "integer": _integer,
    "number": _number,
    "boolean": _boolean,
    "array": _array,
}


def _empty(value: object) -> bool:
    return value is None or (isinstance(value, str) and not value.strip())


def check_answer(fields: tuple[FormField, ...], values: Mapping[str, object]) -> dict[str, Value]:
    """The `content` to send: every value typed by its field, defaults for fields left out, every
    required field present. AnswerError for an unknown field or a value that does not fit."""
    known = {f.name: f for f in fields}
    unknown = [name for name in values if name not in known]
    if unknown:
        listing = ", ".join(known) or "none"
        raise AnswerError(f"there is no field {unknown[0]!r} (the fields are: {listing})")
    content: dict[str, Value] = {}
    for field in fields:
        value = values.get(field.name)
        if isinstance(value, str) and len(value) > VALUE_KEPT:
            raise AnswerError(f"{field.label}: at most {VALUE_KEPT} characters, please")
        if _empty(value):  # left blank: its default, else left out (unless it is required)
            if field.default is not None:
                content[field.name] = field.default
            elif field.required:
                raise AnswerError(f"{field.label}: an answer is required")
            continue
        content[field.name] = _TYPED[field.kind](field, value)
    return content


def typed_hint(field: FormField) -> str:
    """What a field takes, in a few words ("a whole number from 1 to 10", "one of: red, blue")."""
    if field.choices:
        many = "one or more of" if field.kind == "array" else "one of"
        return f"{many}: {_choices_text(field)}"
    if field.kind == "boolean":
        return "yes or no"
    if field.kind in ("number", "integer"):
        what = "a whole number" if field.kind == "integer" else "a number"
        if field.minimum is not None and field.maximum is not None:
            return f"{what} from {field.minimum:g} to {field.maximum:g}"
        if field.minimum is not None:
            return f"{what}, at least {field.minimum:g}"
        if field.maximum is not None:
            return f"{what}, at most {field.maximum:g}"
        return what
    if field.kind == "array":
        return "a list, separated by commas"
    return f"text ({field.format})" if field.format else "text"
