"""Generate `src/acp_tray/protocol/v2_variants.py` from the vendored ACP v2 schema.

    .venv/bin/python tests/tools/make_v2_variants.py          # rewrite the table
    .venv/bin/python tests/tools/make_v2_variants.py --check  # exit 1 when it is stale

Reads `tests/fixtures/acp-schema/v2/schema.unstable.json` (a superset of `schema.json`) and
derives, for every known `SessionUpdate` variant (an `anyOf` branch with a `const`
`sessionUpdate`), the properties of the update object that can be checked at its top level:

- every required property, with the JSON types its value may have;
- optional properties whose type is constrained and that the schema does not mark
  `x-deserialize-default-on-error` (those are treated as absent when wrong, never rejected);
  `_meta` is never checked.

Types are resolved through `$ref`, `allOf` (intersection) and `anyOf`/`oneOf` (union), which is
enough for this schema: a `MessageId` is a string, a `ContentBlock` an object, a
`CompactionStatus` a string, `StateUpdate`'s `state` a string in every branch. Nothing below
the top level is checked (the content of a `ContentBlock`, the items of an array, `minimum`,
`minLength`, ...): acp-tray presents none of these updates, it only refuses to pass a broken
known one on as if it were fine.

`tests/unit/test_v2_updates.py` runs `build_table()` and compares it with the committed module.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from acp_tray.protocol.notice import json_type

ROOT = Path(__file__).resolve().parents[2]
SCHEMA = ROOT / "tests" / "fixtures" / "acp-schema" / "v2" / "schema.unstable.json"
TARGET = ROOT / "src" / "acp_tray" / "protocol" / "v2_variants.py"

JSON_TYPES = ("string", "object", "array", "number", "integer", "boolean", "null")
MAX_DEPTH = 12  # a $ref chain longer than this is treated as unconstrained (none in the schema)

Types = frozenset[str] | None  # None: any JSON value
Field = tuple[bool, tuple[str, ...]]  # (required, allowed JSON types)
Table = dict[str, Any]


def _intersect(a: Types, b: Types) -> Types:
    if a is None:
        return b
    if b is None:
        return a
    both = set(a & b)
    if ("integer" in a and "number" in b) or ("number" in a and "integer" in b):
        both.add("integer")
    return frozenset(both)


def _union(parts: list[Types]) -> Types:
    if any(part is None for part in parts):
        return None
    joined = set().union(*[part for part in parts if part is not None])
    if "number" in joined:
        joined.discard("integer")
    return frozenset(joined)


class _Resolver:
    def __init__(self, document: dict[str, Any]) -> None:
        self.defs: dict[str, Any] = document["$defs"]

    def deref(self, ref: str) -> dict[str, Any]:
        prefix = "#/$defs/"
        if not ref.startswith(prefix):
            raise ValueError(f"unsupported $ref {ref!r}")
        result: dict[str, Any] = self.defs[ref[len(prefix) :]]
        return result

    def types(self, schema: dict[str, Any], depth: int = 0) -> Types:
        """The JSON types a value valid against `schema` can have (None: any)."""
        if depth > MAX_DEPTH:
            return None
        result: Types = None
        if "$ref" in schema:
            result = _intersect(result, self.types(self.deref(schema["$ref"]), depth + 1))
        if "type" in schema:
            declared = schema["type"]
            result = _intersect(result, frozenset([declared] if isinstance(declared, str) else declared))
        if "const" in schema:
            result = _intersect(result, frozenset([json_type(schema["const"])]))
        if "enum" in schema:
            result = _intersect(result, frozenset(json_type(v) for v in schema["enum"]))
        for sub in schema.get("allOf", ()):
            result = _intersect(result, self.types(sub, depth + 1))
        for key in ("anyOf", "oneOf"):
            if key in schema:
                result = _intersect(result, _union([self.types(sub, depth + 1) for sub in schema[key]]))
        return result

    def shape(self, schema: dict[str, Any], depth: int = 0) -> tuple[set[str], dict[str, list[dict[str, Any]]]]:
        """The required names and, per property, every subschema that applies to it, of an object schema.

        `allOf` merges; an `anyOf`/`oneOf` of objects keeps what holds in every branch: a name is
        required when every branch requires it, and a property is constrained to the union of
        the branches' types when every branch constrains it.
        """
        if depth > MAX_DEPTH:
            return set(), {}
        required: set[str] = set(schema.get("required", ()))
        props: dict[str, list[dict[str, Any]]] = {name: [sub] for name, sub in schema.get("properties", {}).items()}

        def merge(other: tuple[set[str], dict[str, list[dict[str, Any]]]]) -> None:
            required.update(other[0])
            for name, subs in other[1].items():
                props.setdefault(name, []).extend(subs)

        if "$ref" in schema:
            merge(self.shape(self.deref(schema["$ref"]), depth + 1))
        for sub in schema.get("allOf", ()):
            merge(self.shape(sub, depth + 1))
        for key in ("anyOf", "oneOf"):
            if key not in schema:
                continue
            branches = [self.shape(sub, depth + 1) for sub in schema[key]]
            common = set.intersection(*(b[0] for b in branches))
            shared = set.intersection(*(set(b[1]) for b in branches))
            alternatives: dict[str, list[dict[str, Any]]] = {}
            for name in shared:
                alternatives[name] = [{"anyOf": [{"allOf": b[1][name]} for b in branches]}]
            merge((common, alternatives))
        return required, props

    def consts(self, schema: dict[str, Any], name: str) -> tuple[str, ...]:
        """The `const` values of property `name` across the branches of an `anyOf`, in schema order."""
        values: list[str] = []
        for branch in schema.get("anyOf", ()):
            const = branch.get("properties", {}).get(name, {}).get("const")
            if isinstance(const, str):
                values.append(const)
        return tuple(values)


def _field(resolver: _Resolver, name: str, required: bool, subs: list[dict[str, Any]]) -> Field | None:
    types = resolver.types({"allOf": subs})
    if required:
        return True, _ordered(types)
    if name == "_meta" or types is None or any(_default_on_error(resolver, sub) for sub in subs):
        return None
    return False, _ordered(types)


def _default_on_error(resolver: _Resolver, schema: dict[str, Any]) -> bool:
    if schema.get("x-deserialize-default-on-error"):
        return True
    return any(_default_on_error(resolver, sub) for sub in schema.get("allOf", ()))


def _ordered(types: Types) -> tuple[str, ...]:
    """In `JSON_TYPES` order; `()` for a required property of any type (only its presence is checked)."""
    if types is None:
        return ()
    return tuple(t for t in JSON_TYPES if t in types)


def build_table(document: dict[str, Any] | None = None) -> Table:
    """The generated module's data: `VARIANTS`, `KNOWN_STATES`, `IDLE_STOP_REASONS`."""
    if document is None:
        document = json.loads(SCHEMA.read_text(encoding="utf-8"))
    resolver = _Resolver(document)
    variants: dict[str, dict[str, Field]] = {}
    for branch in document["$defs"]["SessionUpdate"]["anyOf"]:
        kind = branch.get("properties", {}).get("sessionUpdate", {}).get("const")
        if not isinstance(kind, str):
            continue  # the open "other" fallback
        required, props = resolver.shape(branch)
        fields: dict[str, Field] = {}
        for name, subs in props.items():
            if name == "sessionUpdate":
                continue
            field = _field(resolver, name, name in required, subs)
            if field is not None:
                fields[name] = field
        missing = required - set(props) - {"sessionUpdate"}
        for name in sorted(missing):  # required without a declared type: presence only
            fields[name] = (True, ())
        # required properties first, then the optional ones, each in schema order
        variants[kind] = dict(sorted(fields.items(), key=lambda item: not item[1][0]))
    defs = document["$defs"]
    return {
        "VARIANTS": variants,
        "KNOWN_STATES": resolver.consts(defs["StateUpdate"], "state"),
        "IDLE_STOP_REASONS": resolver.consts(defs["IdleStateUpdate"], "stopReason"),
    }


HEADER = '''"""Known ACP v2 `session/update` variants: what can be checked at the top level of each.

GENERATED from `tests/fixtures/acp-schema/v2/schema.unstable.json` by
`tests/tools/make_v2_variants.py`; do not edit. To regenerate after a schema update:

    .venv/bin/python tests/tools/make_v2_variants.py

`VARIANTS` maps each known `sessionUpdate` value to the properties of the update object that
are checked: `name: (required, JSON types its value may have)`. Every required property is
listed; an optional one only when a wrong type makes the update invalid (not for the
`x-deserialize-default-on-error` ones, which are read as absent). An empty type tuple would
mean "any type, presence only". Nothing below the top level is described here.

`KNOWN_STATES` are the `state` values of `state_update` (the set is open: other strings are
custom or future states), `IDLE_STOP_REASONS` the known `stopReason` values of the idle state
(also open).
"""

from __future__ import annotations

from typing import Final
'''


def _s(value: str) -> str:
    return json.dumps(value)  # a double-quoted Python literal for these ASCII names


def _tuple(values: tuple[str, ...]) -> str:
    return "(" + ", ".join(_s(v) for v in values) + ("," if len(values) == 1 else "") + ")"


def _lines(head: str, items: list[str], brackets: str, tail: str, indent: int) -> list[str]:
    """`head{items}tail` on one line when it fits in 120 columns, else one item per line."""
    pad = " " * indent
    one_line = f"{pad}{head}{brackets[0]}{', '.join(items)}{brackets[1]}{tail}"
    if len(one_line) <= 120:
        return [one_line]
    return [f"{pad}{head}{brackets[0]}", *(f"{pad}    {item}," for item in items), f"{pad}{brackets[1]}{tail}"]


def render(table: Table) -> str:
    """The module's source, laid out the way `ruff format` leaves it (line length 120)."""
    out = [HEADER, "# sessionUpdate -> {property: (required, JSON types allowed for its value)}"]
    out.append("VARIANTS: Final[dict[str, dict[str, tuple[bool, tuple[str, ...]]]]] = {")
    for kind, fields in table["VARIANTS"].items():
        items = [f"{_s(name)}: ({required!r}, {_tuple(types)})" for name, (required, types) in fields.items()]
        out.extend(_lines(f"{_s(kind)}: ", items, "{}", ",", 4))
    out.append("}")
    out.append("")
    for name in ("KNOWN_STATES", "IDLE_STOP_REASONS"):
        values = table[name]
        if len(values) == 1:
            out.append(f"{name}: Final[tuple[str, ...]] = {_tuple(values)}")
        else:
            out.extend(_lines(f"{name}: Final[tuple[str, ...]] = ", [_s(v) for v in values], "()", "", 0))
    return "\n".join(out) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--check", action="store_true", help="only report whether the committed module is current")
    args = parser.parse_args(argv)
    text = render(build_table())
    current = TARGET.read_text(encoding="utf-8") if TARGET.exists() else ""
    if args.check:
        if current != text:
            print(f"{TARGET.relative_to(ROOT)} is stale: run tests/tools/make_v2_variants.py", file=sys.stderr)
            return 1
        return 0
    if current != text:
        TARGET.write_text(text, encoding="utf-8")
        print(f"wrote {TARGET.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
