"""The notice wire rules, table-driven, each fixture checked against the official JSON Schemas."""

from __future__ import annotations

import copy
from typing import Any

import jsonschema
import pytest

from acp_tray.protocol.notice import Notice, SeverityKind, parse_notice, severity_kind
from acp_tray.protocol.update import MalformedUpdate, NoticeUpdate, OtherUpdate, parse_session_update
from acp_tray.protocol.version import ProtocolVersion
from tests.support.schemas import SCHEMA_DIR, SHARED_SCHEMA_DIR, schema, validator_for

VERSIONS = ("v1", "v2")


def notice(**fields: Any) -> dict[str, Any]:
    return {"sessionUpdate": "notice", **fields}


# (id, update payload, expected (severity, title, description, meta) or the rejected field)
ACCEPTED: list[tuple[str, dict[str, Any], tuple[str, str, str | None, dict[str, Any] | None]]] = [
    ("minimal info", notice(severity="info", title="Indexed"), ("info", "Indexed", None, None)),
    ("warning+desc", notice(severity="warning", title="T", description="D"), ("warning", "T", "D", None)),
    (
        "error+desc+meta",
        notice(severity="error", title="T", description="D", _meta={"k": [1, {"x": None}]}),
        ("error", "T", "D", {"k": [1, {"x": None}]}),
    ),
    ("description null", notice(severity="info", title="T", description=None), ("info", "T", None, None)),
    ("meta null", notice(severity="info", title="T", _meta=None), ("info", "T", None, None)),
    ("description number -> absent", notice(severity="info", title="T", description=42), ("info", "T", None, None)),
    (
        "description object -> absent",
        notice(severity="info", title="T", description={"a": 1}),
        ("info", "T", None, None),
    ),
    ("description bool -> absent", notice(severity="info", title="T", description=True), ("info", "T", None, None)),
    ("meta string -> absent", notice(severity="info", title="T", _meta="x"), ("info", "T", None, None)),
    ("meta array -> absent", notice(severity="info", title="T", _meta=[1]), ("info", "T", None, None)),
    ("empty description kept", notice(severity="info", title="T", description=""), ("info", "T", "", None)),
    ("extension severity", notice(severity="_acme.audit", title="T"), ("_acme.audit", "T", None, None)),
    ("future severity", notice(severity="critical", title="T"), ("critical", "T", None, None)),
    ("case is preserved", notice(severity="INFO", title="T"), ("INFO", "T", None, None)),
    ("empty severity string", notice(severity="", title="T"), ("", "T", None, None)),
    ("whitespace title", notice(severity="info", title=" "), ("info", " ", None, None)),
    ("unicode title", notice(severity="info", title="構築 ✅ 👩‍💻"), ("info", "構築 ✅ 👩‍💻", None, None)),
    ("markup is just text", notice(severity="info", title="<b>x</b> & y"), ("info", "<b>x</b> & y", None, None)),
    ("unknown extra field", notice(severity="info", title="T", extra={"a": 1}), ("info", "T", None, None)),
]

REJECTED: list[tuple[str, dict[str, Any], str]] = [
    ("severity missing", notice(title="T"), "severity"),
    ("severity null", notice(severity=None, title="T"), "severity"),
    ("severity number", notice(severity=1, title="T"), "severity"),
    ("severity array", notice(severity=["info"], title="T"), "severity"),
    ("severity object", notice(severity={"level": "info"}, title="T"), "severity"),
    ("title missing", notice(severity="info"), "title"),
    ("title null", notice(severity="info", title=None), "title"),
    ("title empty", notice(severity="info", title=""), "title"),
    ("title number", notice(severity="info", title=5), "title"),
    ("title object", notice(severity="info", title={"text": "T"}), "title"),
    ("title array", notice(severity="info", title=["T"]), "title"),
]


def default_on_error(version: str, update: dict[str, Any]) -> dict[str, Any]:
    """Apply the schema's own `x-deserialize-default-on-error`: a Notice property whose value
    does not validate is treated as absent. Driven by the schema, not by our parser."""
    defs = schema(version)["$defs"]
    result = copy.deepcopy(update)
    for name, prop in defs["Notice"]["properties"].items():
        if (
            prop.get("x-deserialize-default-on-error")
            and name in result
            and not jsonschema.Draft202012Validator({"$defs": defs, **prop}).is_valid(result[name])
        ):
            del result[name]
    return result


def schema_accepts(version: str, update: dict[str, Any]) -> bool:
    return bool(validator_for(version, "SessionUpdate").is_valid(default_on_error(version, update)))


@pytest.mark.parametrize("version", VERSIONS)
@pytest.mark.parametrize(("case", "payload", "expected"), ACCEPTED, ids=[c[0] for c in ACCEPTED])
def test_accepted_notice_agrees_with_schema(
    version: str, case: str, payload: dict[str, Any], expected: tuple[Any, ...]
) -> None:
    assert schema_accepts(version, payload), f"{version} schema rejects {case}"
    parsed = parse_notice(payload)
    assert isinstance(parsed, Notice)
    assert (parsed.severity, parsed.title, parsed.description, parsed.meta) == expected


@pytest.mark.parametrize("version", VERSIONS)
@pytest.mark.parametrize(("case", "payload", "field"), REJECTED, ids=[c[0] for c in REJECTED])
def test_rejected_notice_agrees_with_schema(version: str, case: str, payload: dict[str, Any], field: str) -> None:
    assert not schema_accepts(version, payload), f"{version} schema accepts {case}"
    update = parse_session_update({"sessionId": "s", "update": payload}, ProtocolVersion(int(version[1])))
    assert isinstance(update, MalformedUpdate)
    assert update.field == f"update.{field}"
    assert update.reason  # a readable reason for the log and the history


@pytest.mark.parametrize(("case", "payload", "expected"), ACCEPTED, ids=[c[0] for c in ACCEPTED])
def test_same_notice_parses_identically_in_v1_and_v2(
    case: str, payload: dict[str, Any], expected: tuple[Any, ...]
) -> None:
    params = {"sessionId": "sess-1", "update": payload}
    v1 = parse_session_update(params, ProtocolVersion.V1)
    v2 = parse_session_update(params, ProtocolVersion.V2)
    assert isinstance(v1, NoticeUpdate) and isinstance(v2, NoticeUpdate)
    assert v1.session_id == v2.session_id == "sess-1"
    assert v1.notice.same_content(v2.notice)
    assert validator_for("v1", "SessionNotification").is_valid(
        {"sessionId": "sess-1", "update": default_on_error("v1", payload)}
    )
    assert validator_for("v2", "UpdateSessionNotification").is_valid(
        {"sessionId": "sess-1", "update": default_on_error("v2", payload)}
    )


@pytest.mark.parametrize(
    ("severity", "kind"),
    [
        ("info", SeverityKind.INFO),
        ("warning", SeverityKind.WARNING),
        ("error", SeverityKind.ERROR),
        ("_acme.audit", SeverityKind.EXTENSION),
        ("_", SeverityKind.EXTENSION),
        ("critical", SeverityKind.FUTURE),
        ("Info", SeverityKind.FUTURE),
        ("", SeverityKind.FUTURE),
    ],
)
def test_severity_classification_keeps_the_string(severity: str, kind: SeverityKind) -> None:
    parsed = parse_notice(notice(severity=severity, title="T"))
    assert isinstance(parsed, Notice)
    assert parsed.severity == severity
    assert severity_kind(severity) is kind is parsed.kind


def test_identical_notices_are_independent_events() -> None:
    payload = notice(severity="info", title="Same", description="Same")
    first, second = parse_notice(payload), parse_notice(payload)
    assert isinstance(first, Notice) and isinstance(second, Notice)
    assert first is not second and first != second  # no identity, no dedupe at this layer
    assert first.same_content(second)


@pytest.mark.parametrize(
    ("kind", "version"),
    [
        *((k, ProtocolVersion.V1) for k in ("agent_message_chunk", "tool_call", "plan", "_acme.progress", "x")),
        # v2: unknown variants are never errors (a known one missing its fields is: test_v2_updates.py)
        *((k, ProtocolVersion.V2) for k in ("tool_call", "plan", "_acme.progress", "future_variant")),
    ],
)
def test_other_updates_are_kept_raw(kind: str, version: ProtocolVersion) -> None:
    raw = {"sessionUpdate": kind, "anything": {"nested": [1, 2]}}
    update = parse_session_update({"sessionId": "s", "update": raw}, version)
    assert isinstance(update, OtherUpdate)
    assert update.kind == kind and update.raw == raw


def test_v2_schema_has_an_open_fallback_for_unknown_updates_and_v1_is_closed() -> None:
    unknown = {"sessionUpdate": "_acme.progress", "percent": 5}
    assert validator_for("v2", "SessionUpdate").is_valid(unknown)
    assert not validator_for("v1", "SessionUpdate").is_valid(unknown)
    # either way acp-tray keeps it raw and does not present it
    assert isinstance(parse_session_update({"sessionId": "s", "update": unknown}), OtherUpdate)


@pytest.mark.parametrize(
    ("params", "field"),
    [
        (None, "params"),
        (42, "params"),
        ([], "params"),
        ({"update": notice(severity="info", title="T")}, "sessionId"),
        ({"sessionId": 7, "update": notice(severity="info", title="T")}, "sessionId"),
        ({"sessionId": "s"}, "update"),
        ({"sessionId": "s", "update": "notice"}, "update"),
        ({"sessionId": "s", "update": {"severity": "info"}}, "update.sessionUpdate"),
        ({"sessionId": "s", "update": {"sessionUpdate": 3}}, "update.sessionUpdate"),
    ],
)
def test_broken_envelopes_are_malformed_not_errors(params: object, field: str) -> None:
    update = parse_session_update(params)
    assert isinstance(update, MalformedUpdate)
    assert update.field == field


def test_vendored_schemas_match_the_shared_copy() -> None:
    if not SHARED_SCHEMA_DIR.is_dir():
        pytest.skip("no shared/acp-schema beside this checkout")
    for version in VERSIONS:
        for name in ("schema.json", "schema.unstable.json"):
            vendored = (SCHEMA_DIR / version / name).read_bytes()
            assert vendored == (SHARED_SCHEMA_DIR / version / name).read_bytes(), f"{version}/{name} differs"
