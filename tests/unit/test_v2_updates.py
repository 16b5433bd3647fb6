"""ACP v2 `session/update`: known variants checked at the top level, unknown ones kept raw.

Every rule is checked against the official v2 schema (`$defs/SessionUpdate` in
`tests/fixtures/acp-schema/v2/schema.unstable.json`): what we accept the schema accepts, and
every update we reject as malformed the schema rejects too.
"""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import pytest

from acp_tray.protocol import v2_variants
from acp_tray.protocol.update import MalformedUpdate, NoticeUpdate, OtherUpdate, parse_session_update
from acp_tray.protocol.v2_variants import IDLE_STOP_REASONS, KNOWN_STATES, VARIANTS
from acp_tray.protocol.version import ProtocolVersion
from tests.support.schemas import schema, validator_for
from tests.tools.make_v2_variants import build_table, render

V1, V2 = ProtocolVersion.V1, ProtocolVersion.V2

# One value of each JSON type; a placeholder for a property whose content the schema leaves open.
VALUE_OF_TYPE: dict[str, Any] = {
    "string": "x",
    "object": {},
    "array": [],
    "number": 1.5,
    "integer": 0,
    "boolean": True,
    "null": None,
}
TEXT = {"type": "text", "text": "hi"}
# Values for properties the schema constrains below the top level (a ContentBlock, a plan, ...):
# a new object-valued property in a schema update needs an entry here.
SAMPLES: dict[tuple[str, str], Any] = {
    ("*", "content"): TEXT,  # a ContentBlock
    ("tool_call_content_chunk", "content"): {"type": "content", "content": TEXT},  # a ToolCallContent
    ("plan_update", "plan"): {"type": "items", "planId": "plan-1", "entries": []},
    ("terminal_output_chunk", "data"): "aGk=",  # base64
    ("compaction_update", "status"): "in_progress",
}


def minimal(kind: str) -> dict[str, Any]:
    """The smallest valid update of a known variant, built from the table: its required properties."""
    update: dict[str, Any] = {"sessionUpdate": kind}
    for name, (required, types) in VARIANTS[kind].items():
        if required:
            default = VALUE_OF_TYPE[types[0]] if types else "x"
            update[name] = SAMPLES.get((kind, name), SAMPLES.get(("*", name), default))
    return update


def examples(kind: str) -> list[dict[str, Any]]:
    if kind == "state_update":
        return [{**minimal(kind), "state": state} for state in KNOWN_STATES]
    return [minimal(kind)]


def wrong_values(types: tuple[str, ...]) -> list[Any]:
    """A value of every JSON type that `types` does not allow (an integer is also a number)."""
    allowed = set(types) | ({"integer"} if "number" in types else set())
    return [value for json_type, value in VALUE_OF_TYPE.items() if json_type not in allowed]


def v2_schema_accepts(update: dict[str, Any]) -> bool:
    return bool(validator_for("v2", "SessionUpdate").is_valid(update))


def parse(update: object, version: ProtocolVersion = V2) -> Any:
    return parse_session_update({"sessionId": "s", "update": update}, version)


FIELDS = [(kind, name) for kind, fields in VARIANTS.items() for name in fields]
REQUIRED = [(kind, name) for kind, fields in VARIANTS.items() for name, (required, _) in fields.items() if required]
WRONG_TYPES = [
    (kind, name, value)
    for kind, name in FIELDS
    for value in wrong_values(VARIANTS[kind][name][1])
    if VARIANTS[kind][name][1]
]


# (a) the committed table is what the generator makes of the vendored schema


def test_the_generated_table_matches_the_vendored_schema() -> None:
    table = build_table(schema("v2"))
    assert table["VARIANTS"] == v2_variants.VARIANTS, "run .venv/bin/python tests/tools/make_v2_variants.py"
    assert table["KNOWN_STATES"] == KNOWN_STATES
    assert table["IDLE_STOP_REASONS"] == IDLE_STOP_REASONS
    assert render(table) == Path(v2_variants.__file__).read_text(encoding="utf-8"), (
        "the committed module is stale: run .venv/bin/python tests/tools/make_v2_variants.py"
    )


def test_the_table_covers_every_known_variant_of_the_schema() -> None:
    branches = schema("v2")["$defs"]["SessionUpdate"]["anyOf"]
    consts = [b["properties"]["sessionUpdate"].get("const") for b in branches]
    assert [c for c in consts if c is not None] == list(VARIANTS)
    assert consts.count(None) == 1  # the open "other" fallback, for unknown values
    assert "notice" in VARIANTS and "state_update" in VARIANTS
    assert VARIANTS["agent_message_chunk"] == {"messageId": (True, ("string",)), "content": (True, ("object",))}
    assert VARIANTS["state_update"] == {"state": (True, ("string",))}
    assert KNOWN_STATES == ("running", "idle", "requires_action", "unknown")
    assert IDLE_STOP_REASONS == ("end_turn", "max_tokens", "max_turn_requests", "refusal", "cancelled", "error")


# (b) known variants: minimal valid ones are kept raw, broken ones are malformed, as the schema says


@pytest.mark.parametrize("kind", list(VARIANTS))
def test_a_minimal_known_variant_is_valid_and_kept_raw(kind: str) -> None:
    for update in examples(kind):
        assert v2_schema_accepts(update), f"the v2 schema rejects {update}"
        parsed = parse(update)
        if kind == "notice":
            assert isinstance(parsed, NoticeUpdate)  # its own parser, same as v1
            continue
        assert isinstance(parsed, OtherUpdate), parsed
        assert parsed.kind == kind and parsed.raw is update


@pytest.mark.parametrize(("kind", "name"), REQUIRED, ids=[f"{k}.{n}" for k, n in REQUIRED])
def test_a_known_variant_without_a_required_property_is_malformed(kind: str, name: str) -> None:
    for example in examples(kind):
        update = copy.deepcopy(example)
        del update[name]
        assert not v2_schema_accepts(update), f"the v2 schema accepts {update}"
        params = {"sessionId": "s", "update": update}
        parsed = parse_session_update(params, V2)
        assert isinstance(parsed, MalformedUpdate), parsed
        assert (parsed.session_id, parsed.kind, parsed.field) == ("s", kind, f"update.{name}")
        assert parsed.reason == "missing (required)"
        assert parsed.raw is params


@pytest.mark.parametrize(("kind", "name", "value"), WRONG_TYPES, ids=[f"{k}.{n}={v!r}" for k, n, v in WRONG_TYPES])
def test_a_known_variant_with_a_wrong_typed_property_is_malformed(kind: str, name: str, value: Any) -> None:
    for example in examples(kind):
        update = {**example, name: value}
        assert not v2_schema_accepts(update), f"the v2 schema accepts {update}"
        parsed = parse(update)
        assert isinstance(parsed, MalformedUpdate), parsed
        assert (parsed.kind, parsed.field) == (kind, f"update.{name}")
        assert parsed.reason.startswith("must be ")


@pytest.mark.parametrize(
    ("update", "reason"),
    [
        ({"sessionUpdate": "agent_message_chunk", "messageId": 7, "content": TEXT}, "must be a string, got integer"),
        ({"sessionUpdate": "agent_message_chunk", "messageId": "m", "content": "hi"}, "must be an object, got string"),
        ({"sessionUpdate": "state_update", "state": None}, "must be a string, got null"),
        ({"sessionUpdate": "usage_update", "used": True, "size": 1}, "must be an integer, got boolean"),
        ({"sessionUpdate": "usage_update", "used": 1.5, "size": 1}, "must be an integer, got number"),
        ({"sessionUpdate": "subagent_update", "sessionId": "c", "cwd": 3}, "must be a string or null, got integer"),
    ],
)
def test_the_reason_names_the_expected_and_the_actual_type(update: dict[str, Any], reason: str) -> None:
    assert not v2_schema_accepts(update)
    parsed = parse(update)
    assert isinstance(parsed, MalformedUpdate)
    assert parsed.reason == reason


@pytest.mark.parametrize(
    "update",
    [
        # open sets below the top level: custom or future values are fine
        {"sessionUpdate": "state_update", "state": "_acme.paused"},
        {"sessionUpdate": "state_update", "state": "hibernating", "anything": [1]},
        {"sessionUpdate": "state_update", "state": "idle", "stopReason": "_acme.budget"},
        {"sessionUpdate": "compaction_update", "compactionId": "c", "status": "_acme.paused"},
        # optional properties the schema reads as absent when wrong (`x-deserialize-default-on-error`)
        {"sessionUpdate": "tool_call_update", "toolCallId": "t", "title": 5, "_meta": "x"},
        {"sessionUpdate": "session_info_update", "title": ["x"], "updatedAt": 1},
        {"sessionUpdate": "user_message", "messageId": "m", "content": "not an array"},
        # optional checked properties may be null
        {"sessionUpdate": "subagent_update", "sessionId": "c", "cwd": None, "additionalDirectories": None},
        # extra properties
        {"sessionUpdate": "agent_message_chunk", "messageId": "m", "content": TEXT, "_acme.extra": {"a": 1}},
    ],
)
def test_what_the_top_level_check_lets_through(update: dict[str, Any]) -> None:
    parsed = parse(update)
    assert isinstance(parsed, OtherUpdate), parsed
    assert parsed.raw is update


# (c) unknown variants are preserved raw and are never an error


@pytest.mark.parametrize("kind", ["_x.custom", "future_thing", "_", "tool_call", "plan", "Agent_Message_Chunk", ""])
@pytest.mark.parametrize(
    "payload",
    [
        {},
        {"content": 5, "messageId": None, "state": {"deep": [1, {"x": None}]}},
        {"severity": None, "title": ""},  # notice-like fields mean nothing outside a notice
        {"data": "é ✅", "n": 1.5, "flag": False, "list": [[], {}]},
    ],
)
def test_unknown_variants_are_kept_raw_and_never_malformed(kind: str, payload: dict[str, Any]) -> None:
    update = {"sessionUpdate": kind, **copy.deepcopy(payload)}
    before = copy.deepcopy(update)
    assert v2_schema_accepts(update)  # the schema's "other" fallback
    parsed = parse(update)
    assert isinstance(parsed, OtherUpdate), parsed
    assert parsed.kind == kind
    assert parsed.raw is update and parsed.raw == before  # the very object, untouched


# (d) the notice: identical on V1 and V2


@pytest.mark.parametrize(
    "payload",
    [
        {"severity": "info", "title": "T"},
        {"severity": "warning", "title": "T", "description": "D", "_meta": {"k": [1, None]}},
        {"severity": "error", "title": "T", "description": None, "_meta": None},
        {"severity": "_acme.audit", "title": "T", "description": 42, "_meta": "x"},
        {"severity": "critical", "title": "構築 ✅", "extra": True},
        {"severity": "INFO", "title": " "},
    ],
)
def test_a_notice_parses_the_same_on_v1_and_v2(payload: dict[str, Any]) -> None:
    update = {"sessionUpdate": "notice", **payload}
    v1, v2 = parse(update, V1), parse(update, V2)
    assert isinstance(v1, NoticeUpdate) and isinstance(v2, NoticeUpdate)
    fields = [(u.notice.severity, u.notice.title, u.notice.description, u.notice.meta) for u in (v1, v2)]
    assert fields[0] == fields[1]
    assert v2.notice.severity == payload["severity"]  # `_`-prefixed and unknown severities untouched


@pytest.mark.parametrize(
    "payload",
    [{"title": "T"}, {"severity": None, "title": "T"}, {"severity": "info"}, {"severity": "info", "title": ""}],
)
def test_a_malformed_notice_is_reported_the_same_on_v1_and_v2(payload: dict[str, Any]) -> None:
    update = {"sessionUpdate": "notice", **payload}
    v1, v2 = parse(update, V1), parse(update, V2)
    assert isinstance(v1, MalformedUpdate) and isinstance(v2, MalformedUpdate)
    assert (v1.kind, v1.field, v1.reason) == (v2.kind, v2.field, v2.reason)


# (e) v1 is unchanged


def test_v1_keeps_a_broken_agent_message_chunk_raw() -> None:
    # Tolerated on purpose: v1's SessionUpdate union is closed in the schema, but acp-tray has
    # always kept non-notice v1 updates raw and ignored them for presentation, so an agent that
    # sends a sloppy chunk (here: no content) loses nothing it had before and the session goes on.
    update = {"sessionUpdate": "agent_message_chunk"}
    assert not validator_for("v1", "SessionUpdate").is_valid(update)
    parsed = parse(update, V1)
    assert isinstance(parsed, OtherUpdate)
    assert parsed.kind == "agent_message_chunk" and parsed.raw is update
    assert isinstance(parse(update, V2), MalformedUpdate)  # the same bytes on v2 are checked


@pytest.mark.parametrize("kind", [k for k in VARIANTS if k != "notice"])
def test_v1_does_not_check_the_v2_variants(kind: str) -> None:
    update = {"sessionUpdate": kind, **dict.fromkeys(VARIANTS[kind], 12345)}
    parsed = parse(update, V1)
    assert isinstance(parsed, OtherUpdate)
    assert parsed.raw is update
