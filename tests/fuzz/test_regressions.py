"""Nasty agent output, written by hand or found by the fuzzer, kept as plain tests.

Each case sends its lines through the daemon's real receive and presentation path
(tests/fuzz/harness.py), then a valid notice that must still arrive after them, and checks the
same invariants as the fuzz tests: nothing escapes, every skipped line is counted, the history
holds exactly the expected records with the strings as sent and the router's decision.

The tests at the end are bugs the fuzzing found, now fixed: each says what was wrong.
"""

from __future__ import annotations

import asyncio
import json
import logging
import math
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import pytest

from acp_tray.agents.approvals import MAX_PENDING_PER_AGENT
from acp_tray.agents.host import AgentHost, AgentSpec, PermissionPolicy
from acp_tray.agents.host_options import HostOptions
from acp_tray.agents.transport import DEFAULT_MAX_LINE_BYTES
from acp_tray.events import EventSink, NoticeReceived, PermissionAsked, PermissionSettled
from acp_tray.protocol.version import ProtocolVersion
from tests.fuzz.harness import Run, check, decode_problems, run_stream
from tests.fuzz.strategies import Deep, Expect, Item
from tests.support.agents import scripted_command
from tests.support.event_log import EventLog

SID = "s"


def line(update: str, *, envelope: str = "", sid: str = SID, ending: bytes = b"\n") -> bytes:
    """A session/update line around `update` (JSON text, written as is)."""
    text = '{"jsonrpc":"2.0","method":"session/update"' + envelope
    text += ',"params":{"sessionId":' + json.dumps(sid) + ',"update":' + update + "}}"
    return text.encode("utf-8", "surrogatepass") + ending


def notice_json(title: str = '"t"', severity: str = '"warning"', extra: str = "") -> str:
    """A notice update; `title` and `severity` are JSON text (escapes stay escapes)."""
    return '{"sessionUpdate":"notice","severity":' + severity + ',"title":' + title + extra + "}"


def notice(title: str, severity: str = "warning", **fields: Any) -> Expect:
    return Expect("regression", "notice", session_id=SID, severity=severity, title=title, **fields)


def malformed(field: str, variant: str | None = "notice", **fields: Any) -> Expect:
    values: dict[str, Any] = {"session_id": SID, "severity": None, "title": None, **fields}
    return Expect("regression", "malformed", field=field, variant=variant, **values)


SKIPPED = Expect("regression", drops=1)
NOTHING = Expect("regression")
AFTER = Item(line(notice_json('"after the nasty line"', '"info"')), notice("after the nasty line", "info"))


@dataclass(frozen=True)
class Case:
    items: Sequence[Item]
    version: ProtocolVersion = ProtocolVersion.V1
    max_line_bytes: int = DEFAULT_MAX_LINE_BYTES
    after: bool = True  # a valid notice follows, and must arrive
    chunk: int = 0  # feed the bytes in chunks of this size (0: all at once)


def one(data: bytes, expect: Expect, **options: Any) -> Case:
    return Case([Item(data, expect)], **options)


def deep(depth: int, objects: bool = False) -> str:
    return Deep(depth, objects).text()


EXACT_LIMIT = 4096


def at_limit(extra: int) -> bytes:
    """A notice line whose content is exactly EXACT_LIMIT + `extra` bytes (without its newline)."""
    bare = len(line(notice_json('""'), ending=b""))
    return line(notice_json('"' + "x" * (EXACT_LIMIT + extra - bare) + '"'))


CASES: dict[str, Case] = {
    # deep nesting: refused beyond the parsers' limits, never a crash; accepted below them
    "arrays 100k deep": one(b"[" * 100_000 + b"]" * 100_000 + b"\n", SKIPPED),
    "unclosed arrays 1M deep": one(b"[" * 1_000_000 + b"\n", SKIPPED),
    # too deep for any parser: only the `_meta` is dropped, the notice is shown (security review item 13)
    "objects 5000 deep in _meta": one(line(notice_json(extra=',"_meta":' + deep(5000, True))), notice("t", meta=None)),
    "arrays 3000 deep in _meta, brackets in strings": one(
        line(notice_json(extra=',"_meta":{"s":"]}\\"","d":' + deep(3000) + "}")), notice("t", meta=None)
    ),
    "arrays 1200 deep in an unknown variant": one(line('{"sessionUpdate":"_x","p":' + deep(1200) + "}"), SKIPPED),
    "_meta 200 deep (pydantic-core's limit)": one(
        line(notice_json(extra=',"_meta":{"d":' + deep(200) + "}")), notice("t", meta={"d": Deep(200)})
    ),
    "_meta 256 deep (json.loads fallback)": one(
        line(notice_json(extra=',"_meta":{"d":' + deep(256, True) + "}")), notice("t", meta={"d": Deep(256, True)})
    ),
    "_meta 700 deep": one(
        line(notice_json(extra=',"_meta":{"d":' + deep(700) + "}")), notice("t", meta={"d": Deep(700)})
    ),
    "malformed notice with _meta 700 deep": one(
        line(notice_json('""', extra=',"_meta":' + deep(700, True))),
        malformed("update.title", severity="warning", title=""),
    ),
    "v2 state_update with error.data 700 deep": one(
        line('{"sessionUpdate":"state_update","state":"idle","error":{"message":"m","data":' + deep(700) + "}}"),
        NOTHING,
        version=ProtocolVersion.V2,
    ),
    # megabytes, around the real 4 MiB line limit
    "title of 5 MiB": one(line(notice_json('"' + "y" * (5 << 20) + '"')), SKIPPED),
    "title of 3.9 MB": one(line(notice_json('"' + "x" * 3_900_000 + '"')), notice("x" * 3_900_000)),
    "description of 1.9M two-byte characters": one(
        line(notice_json(extra=',"description":"' + "é" * 1_900_000 + '"')), notice("t", description="é" * 1_900_000)
    ),
    "_meta of 3.5 MB in escapes": one(
        line(notice_json(extra=',"_meta":{"b":"' + "\\ud800" * 580_000 + '"}')),
        notice("t", meta={"b": "\ud800" * 580_000}),
    ),
    "line exactly at the limit": one(
        at_limit(0), notice("x" * (EXACT_LIMIT - len(line(notice_json('""'), ending=b"")))), max_line_bytes=EXACT_LIMIT
    ),
    "line one byte over the limit": one(at_limit(1), SKIPPED, max_line_bytes=EXACT_LIMIT),
    "over-long line in 100-byte chunks": one(at_limit(5000), SKIPPED, max_line_bytes=EXACT_LIMIT, chunk=100),
    "over-long last line without newline": Case(
        [AFTER, Item(at_limit(5000).rstrip(b"\n"), SKIPPED)], max_line_bytes=EXACT_LIMIT, after=False
    ),
    # lone surrogates (JSON escapes pydantic-core refuses; the json.loads fallback keeps them)
    "lone high surrogate in the title": one(line(notice_json('"\\ud800"')), notice("\ud800")),
    "lone low surrogate as the severity": one(line(notice_json(severity='"\\udfff"')), notice("t", severity="\udfff")),
    "reversed surrogate pair": one(line(notice_json('"\\udc00\\ud800"')), notice("\udc00\ud800")),
    "high surrogate at the end": one(line(notice_json('"abc\\ud800"')), notice("abc\ud800")),
    "valid surrogate pair": one(line(notice_json('"\\ud83d\\ude00"')), notice("😀")),
    "surrogate as CESU-8 bytes (json.loads takes them with surrogatepass)": one(
        line(notice_json('"a\ud800b"')), notice("a\ud800b")
    ),
    "surrogate in a _meta key": one(line(notice_json(extra=',"_meta":{"\\udfff":1}')), notice("t", meta={"\udfff": 1})),
    "surrogate in the sessionId": Case(
        [Item(line(notice_json(), sid="\ud800"), replace(notice("t"), session_id="\ud800"))]
    ),
    # numbers
    "NaN and infinities in _meta": one(
        line(notice_json(extra=',"_meta":{"n":NaN,"i":Infinity,"m":-Infinity,"big":1e400}')),
        notice("t", meta={"n": math.nan, "i": math.inf, "m": -math.inf, "big": math.inf}),
    ),
    "NaN as the title": one(line(notice_json("NaN")), malformed("update.title", severity="warning")),
    "Infinity as the severity": one(line(notice_json(severity="Infinity")), malformed("update.severity", title="t")),
    "1e400 as the sessionId": one(
        b'{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":1e400,"update":'
        + notice_json().encode()
        + b"}}\n",
        malformed("sessionId", session_id=None, severity="warning", title="t"),
    ),
    "id of 5000 digits": one(b'{"jsonrpc":"2.0","id":' + b"9" * 5000 + b',"method":"x"}\n', SKIPPED),
    "session/update as a request with an id of 4300 digits": one(
        line(notice_json(), envelope=',"id":' + "9" * 4300), notice("t")
    ),
    "title of -0.0": one(line(notice_json("-0.0")), malformed("update.title", severity="warning")),
    # duplicate keys: the last one wins, as in json.loads
    "empty title, then a title": one(line(notice_json('""', extra=',"title":"x"')), notice("x")),
    "a title, then an empty one": one(
        line(notice_json('"x"', extra=',"title":""')), malformed("update.title", severity="warning", title="")
    ),
    "sessionUpdate agent_message_chunk, then notice": one(
        line('{"sessionUpdate":"agent_message_chunk",' + notice_json()[1:]), notice("t")
    ),
    "method 42, then session/update": one(b'{"method":42,' + line(notice_json())[1:], notice("t")),
    "a notice update, then update 5": one(
        line(notice_json()).replace(b"}}\n", b',"update":5}}\n'), malformed("update", variant=None)
    ),
    # byte order marks
    "UTF-8 BOM before the object": one(b"\xef\xbb\xbf" + line(notice_json()), notice("t")),
    "two BOMs": one(b"\xef\xbb\xbf\xef\xbb\xbf" + line(notice_json()), SKIPPED),
    "BOM inside the object": one(b"{\xef\xbb\xbf" + line(notice_json())[1:], SKIPPED),
    "UTF-16 BOM": one(b"\xff\xfe" + line(notice_json()), SKIPPED),
    # line endings
    "CRLF": one(line(notice_json(), ending=b"\r\n"), notice("t")),
    "CR alone between two notices": one(line(notice_json(), ending=b"\r") + line(notice_json()), SKIPPED),
    "vertical tab and form feed around the line": one(
        b"\x0b\x0c" + line(notice_json(), ending=b"\x0c\x0b\n"), notice("t")
    ),
    "raw line feed inside the title": one(line(notice_json('"a\nb"')), Expect("regression", drops=2)),
    "blank and whitespace-only lines": one(b"\n\n   \n\t\r\n\x0b\n", NOTHING),
    # NUL
    "raw NUL inside the title": one(line(notice_json('"a\x00b"')), SKIPPED),
    "escaped NUL in the title": one(line(notice_json('"a\\u0000b"')), notice("a\x00b")),
    "a line of NULs": one(b"\x00\x00\x00\x00\n", SKIPPED),
    "NUL after the object": one(line(notice_json(), ending=b"\x00\n"), SKIPPED),
    "NUL before the object (json.loads guesses UTF-16)": one(b"\x00" + line(notice_json()), SKIPPED),
    # partial lines
    "last line without its newline": Case([AFTER, Item(line(notice_json(), ending=b""), notice("t"))], after=False),
    "a line in 1-byte chunks": one(line(notice_json('"split"')), notice("split"), chunk=1),
    "a line cut short, then the next": one(line(notice_json())[:40] + b"\n", SKIPPED),
    "two objects on one line": one(line(notice_json(), ending=b"") + line(notice_json()), SKIPPED),
    # JSON that is not a routable JSON-RPC object
    **{f"not an object: {text!r}": one(text + b"\n", SKIPPED) for text in (b"42", b"[1,2]", b'"x"', b"null", b"true")},
    "an empty object": one(b"{}\n", SKIPPED),
    "a JSON-RPC batch": one(b"[" + line(notice_json(), ending=b"") + b"]\n", SKIPPED),
    "id true": one(line(notice_json(), envelope=',"id":true'), SKIPPED),
    "id 1.5": one(line(notice_json(), envelope=',"id":1.5'), SKIPPED),
    "id [1]": one(b'{"jsonrpc":"2.0","id":[1],"result":{}}\n', SKIPPED),
    "error not an object": one(b'{"jsonrpc":"2.0","id":3,"error":"boom"}\n', SKIPPED),
    "method null": one(line(notice_json(), envelope=',"method":null'), SKIPPED),
    # routable, and nothing to record
    "request of an unknown method": one(
        b'{"jsonrpc":"2.0","id":5,"method":"fs/delete_everything","params":{}}\n', NOTHING
    ),
    "notification of an unknown method": one(b'{"jsonrpc":"2.0","method":"_acme/ping"}\n', NOTHING),
    "response to an id never sent": one(b'{"jsonrpc":"2.0","id":424242,"result":{"x":1}}\n', NOTHING),
    "error response to an id never sent": one(b'{"jsonrpc":"2.0","id":"nope","error":{"code":"x"}}\n', NOTHING),
    "$/cancel_request for an unhashable id": one(
        b'{"jsonrpc":"2.0","method":"$/cancel_request","params":{"requestId":[{}]}}\n', NOTHING
    ),
    "permission request without params": one(
        b'{"jsonrpc":"2.0","id":9,"method":"session/request_permission"}\n', NOTHING
    ),
    # leniency kept on purpose
    "session/update as a request": one(line(notice_json(), envelope=',"id":7'), notice("t")),
    "no jsonrpc member": one(line(notice_json()).replace(b'"jsonrpc":"2.0",', b""), notice("t")),
    'jsonrpc "1.0"': one(line(notice_json()).replace(b'"2.0"', b'"1.0"'), notice("t")),
    "no params": one(
        b'{"jsonrpc":"2.0","method":"session/update"}\n', malformed("params", session_id=None, variant=None)
    ),
    # variants
    "v2 agent_message_chunk without messageId": one(
        line('{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"hi"}}'),
        malformed("update.messageId", "agent_message_chunk"),
        version=ProtocolVersion.V2,
    ),
    "v1 agent_message_chunk without messageId": one(
        line('{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"hi"}}'), NOTHING
    ),
    "v2 usage_update with used 1.0": one(
        line('{"sessionUpdate":"usage_update","used":1.0,"size":2}'),
        malformed("update.used", "usage_update"),
        version=ProtocolVersion.V2,
    ),
    "v2 usage_update with used true": one(
        line('{"sessionUpdate":"usage_update","used":true,"size":2}'),
        malformed("update.used", "usage_update"),
        version=ProtocolVersion.V2,
    ),
    "v2 subagent_update with cwd 5": one(
        line('{"sessionUpdate":"subagent_update","sessionId":"c","cwd":5}'),
        malformed("update.cwd", "subagent_update"),
        version=ProtocolVersion.V2,
    ),
    "v2 unknown variant with a notice's fields": one(
        line('{"sessionUpdate":"_acme.notice","severity":"error","title":"x"}'), NOTHING, version=ProtocolVersion.V2
    ),
    'v2 "notice " with a trailing space': one(
        line(notice_json().replace('"notice"', '"notice "')), NOTHING, version=ProtocolVersion.V2
    ),
    "v2 empty sessionUpdate": one(line('{"sessionUpdate":""}'), NOTHING, version=ProtocolVersion.V2),
}


def run_case(case: Case, **options: Any) -> Run:
    items = [*case.items, AFTER] if case.after else list(case.items)
    data = b"".join(item.line for item in items)
    chunks = [data[i : i + case.chunk] for i in range(0, len(data), case.chunk)] if case.chunk else [data]
    with tempfile.TemporaryDirectory() as tmp:
        run = asyncio.run(
            run_stream(chunks, case.version, "default", Path(tmp) / "history.jsonl", case.max_line_bytes, **options)
        )
    problems = check(items, run) + decode_problems(item.line for item in items)
    assert not problems, "\n".join(problems)
    return run


@pytest.mark.parametrize("name", list(CASES))
def test_nasty_line_then_a_valid_notice(name: str) -> None:
    run = run_case(CASES[name])
    if CASES[name].after:
        assert run.records[-1]["title"] == "after the nasty line"


# bugs found by the fuzzing (fixed) ------------------------------------------


@pytest.mark.parametrize("title", ['"t"', '""'], ids=["notice", "malformed"])
def test_nesting_near_the_parsers_limit_is_recorded_or_skipped(title: str) -> None:
    """Every depth from 500 to 1000: each line is either skipped (counted) or recorded; nothing escapes."""
    depths = range(500, 1001)
    data = b"".join(line(notice_json(title, extra=',"_meta":{"x":' + deep(d) + "}")) for d in depths)
    with tempfile.TemporaryDirectory() as tmp:
        run = asyncio.run(run_stream([data], ProtocolVersion.V1, "default", Path(tmp) / "history.jsonl"))
    assert not run.errors, run.errors[0]
    assert len(run.records) + len(run.drops) == len(depths)


def elicitation(n: int) -> bytes:
    params = {"sessionId": SID, "message": f"please answer question {n}"}
    return json.dumps({"jsonrpc": "2.0", "id": n, "method": "elicitation/create", "params": params}).encode() + b"\n"


def permission(n: int) -> bytes:
    options = [{"optionId": "yes", "name": "Allow", "kind": "allow_once"}, {"optionId": "no", "kind": "reject_once"}]
    params = {"sessionId": SID, "toolCall": {"title": f"rm -rf /tmp/{n}"}, "options": options}
    message = {"jsonrpc": "2.0", "id": n, "method": "session/request_permission", "params": params}
    return json.dumps(message).encode() + b"\n"


@pytest.mark.parametrize("request_line", [elicitation, permission], ids=["elicitation", "permission"])
def test_an_agent_cannot_flood_native_notifications_through_its_requests(request_line: Any) -> None:
    data = b"".join(request_line(n) for n in range(100))
    with tempfile.TemporaryDirectory() as tmp:
        run = asyncio.run(
            run_stream([data], ProtocolVersion.V1, "default", Path(tmp) / "history.jsonl", permission="ask")
        )
    assert not run.errors
    shown = [p for p in run.presented if p.source == "acp-tray"]
    # all in the tray and the history; permission requests beyond the per-agent cap are answered at once
    assert len(shown) == (100 if request_line is elicitation else MAX_PENDING_PER_AGENT)
    burst = 5  # the default rate limit: 5 native notifications per 10 s per agent
    assert len({p.group for p in shown if p.notify}) <= burst


def test_a_flood_of_malformed_updates_does_not_flood_the_log(caplog: pytest.LogCaptureFixture) -> None:
    data = line(notice_json('""')) * 1000
    caplog.set_level(logging.WARNING)
    with tempfile.TemporaryDirectory() as tmp:
        run = asyncio.run(run_stream([data], ProtocolVersion.V1, "default", Path(tmp) / "history.jsonl"))
    assert len(run.records) == 1000  # every one is in the history
    warnings = [r for r in caplog.records if r.name == "acp_tray.agents.client_handler"]
    assert len(warnings) <= 100


def v1_host(name: str, spec: AgentSpec, sink: EventSink, **options: Any) -> AgentHost:
    """A host that offers ACP 1 (and the other `options`, as HostOptions takes them)."""
    return AgentHost(name, spec, sink, HostOptions(protocol=1, **options))


async def test_cancel_request_with_id_true_does_not_withdraw_request_1(tmp_path: Path) -> None:
    options = [{"optionId": "yes", "name": "Allow", "kind": "allow_once"}]
    ask = {"jsonrpc": "2.0", "id": 1, "method": "session/request_permission"}
    ask["params"] = {"sessionId": "scripted-1", "toolCall": {"title": "deploy"}, "options": options}
    cancel = {"jsonrpc": "2.0", "method": "$/cancel_request", "params": {"requestId": True}}
    sentinel = {"sessionUpdate": "notice", "severity": "info", "title": "sentinel"}
    steps = [{"raw": json.dumps(ask)}, {"raw": json.dumps(cancel)}, {"update": sentinel}]
    (tmp_path / "steps.json").write_text(json.dumps(steps), encoding="utf-8")
    spec = AgentSpec(
        command=scripted_command(), cwd=tmp_path, env={"SCRIPTED_AGENT_STEPS_FILE": str(tmp_path / "steps.json")}
    )
    log = EventLog()
    host = v1_host("bot", spec, log, policy=PermissionPolicy("ask"))
    task = asyncio.create_task(host.run())
    try:
        await log.wait_for(lambda: bool(log.of(NoticeReceived)) or task.done(), timeout=30)
        await asyncio.sleep(0.2)
        assert len(log.of(PermissionAsked)) == 1
        assert log.of(PermissionSettled) == []  # still waiting for the person
    finally:
        task.cancel()
        await asyncio.gather(task, return_exceptions=True)
