"""The events an op streams before its reply are declared once, with the op (control/api.py): every
op the daemon answers with a stream declares the union of its events (control/replies.py, watch_events.py), each
event goes on the wire and back unchanged, and an event its op does not declare, or one missing a
field or with one of the wrong type, is an error that says so (never a KeyError)."""

from __future__ import annotations

import ast
import dataclasses
import typing
from typing import Any, Never

import pytest

from acp_tray.control import api, replies, watch_events
from acp_tray.control.streamed import EventError, wire_event
from tests.support.repo import ROOT

OPS_TABLE = ROOT / "src" / "acp_tray" / "app" / "ops" / "__init__.py"

SAMPLES: dict[type[Any], Any] = {
    replies.Queued: replies.Queued("7", 2, "default", "s1"),
    replies.Started: replies.Started("default", "s1"),
    replies.Chunk: replies.Chunk("Hello "),
    replies.Dropped: replies.Dropped("this client read too slowly"),
    replies.Waiting: replies.Waiting("waiting for demo to finish signing in"),
    replies.SignInSaid: replies.SignInSaid("open", "https://example.org/device", True),
    watch_events.Snapshot: watch_events.Snapshot({"dnd": "off", "unread": 3, "agents": [], "preferences": "v1"}),
    watch_events.Changes: watch_events.Changes({"unread": 4}),
    watch_events.HistoryAdded: watch_events.HistoryAdded({"id": 9, "title": "Build finished"}),
}


def streamed_ops() -> set[str]:
    """The ops app/ops routes as streaming ones (`streaming(api.X, ...)`, `following(api.X, ...)`)."""
    found = set()
    for node in ast.walk(ast.parse(OPS_TABLE.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Call) and getattr(node.func, "id", "") in ("streaming", "following"):
            op = node.args[0]
            assert isinstance(op, ast.Attribute)
            found.add(getattr(api, op.attr).name)
    return found


def declared_union(op: api.Op[Any, Any, Any]) -> Any:
    """The third type argument of the op's annotation in control/api.py (its events' union)."""
    hints = typing.get_type_hints(api)
    (name,) = [name for name, value in vars(api).items() if value is op and name in hints]
    return typing.get_args(hints[name])[2]


def test_every_streaming_op_declares_the_union_of_its_events() -> None:
    streaming = streamed_ops()
    assert {"prompt", "login", "watch"} <= streaming
    for op in api.OPS:
        union = declared_union(op)
        if op.name in streaming:
            assert union is not Never and op.events, f"{op.name} streams events but declares none"
            assert set(op.events) == set(typing.get_args(union) or (union,)), op.name
        else:
            assert union is Never and op.events == (), f"{op.name} declares events it never streams"


def test_each_op_tells_its_events_apart_by_kind() -> None:
    for op in api.OPS:
        kinds = [event.kind for event in op.events]
        assert len(kinds) == len(set(kinds)), op.name
        assert all(dataclasses.is_dataclass(event) for event in op.events)


@pytest.mark.parametrize("op", [op for op in api.OPS if op.events], ids=lambda op: op.name)
def test_each_event_goes_on_the_wire_and_back_unchanged(op: api.Op[Any, Any, Any]) -> None:
    for event_type in op.events:
        event = SAMPLES[event_type]
        assert op.event(wire_event(event)) == event
        assert op.event({"v": 1, **wire_event(event), "later": "a key of a newer daemon"}) == event


def test_the_wire_format_is_as_before() -> None:
    assert wire_event(replies.Queued("7", 0, "default", None)) == {
        "event": "queued", "job": "7", "ahead": 0, "session": "default", "session_id": None
    }  # fmt: skip
    assert wire_event(replies.SignInSaid("t", "https://x.test/", False)) == {
        "event": "sign-in-link", "text": "t", "url": "https://x.test/", "reads_code": False
    }  # fmt: skip
    assert wire_event(watch_events.Changes({"dnd": "on"})) == {"event": "change", "dnd": "on"}
    assert wire_event(watch_events.HistoryAdded({"id": 1})) == {"event": "history", "record": {"id": 1}}


@pytest.mark.parametrize(
    ("op", "message", "said"),
    [
        (api.PROMPT, {"event": "surprise"}, "`prompt` streams no 'surprise' event (its events: 'queued', "),
        (api.PROMPT, {}, "`prompt` streams no None event"),
        (api.PROMPT, {"event": "snapshot"}, "`prompt` streams no 'snapshot' event"),
        (api.PROMPT, {"event": "chunk"}, "a 'chunk' event of `prompt` without its 'text'"),
        (api.PROMPT, {"event": "chunk", "text": None}, "a 'chunk' event of `prompt` with a wrong 'text'"),
        (
            api.PROMPT,
            {"event": "queued", "job": "1", "ahead": "two", "session": "default", "session_id": None},
            "a 'queued' event of `prompt` with a wrong 'ahead'",
        ),
        (api.PROMPT, {"event": "queued", "job": "1", "ahead": True, "session": "d", "session_id": None}, "'ahead'"),
        (api.LOGIN, {"event": "sign-in-link", "text": "t", "url": "u"}, "without its 'reads_code'"),
        (api.WATCH, {"event": "change", "agents": "demo"}, "a 'change' event of `watch` with a wrong 'agents'"),
        (api.WATCH, {"event": "history", "record": []}, "a 'history' event of `watch` with a wrong 'record'"),
        (api.STATUS, {"event": "chunk", "text": "x"}, "`status` streams no 'chunk' event (its events: none)"),
    ],
)
def test_an_event_its_op_does_not_declare_or_a_malformed_one_is_said(
    op: api.Op[Any, Any, Any], message: dict[str, Any], said: str
) -> None:
    with pytest.raises(EventError) as caught:
        op.event(message)
    assert said in str(caught.value)
