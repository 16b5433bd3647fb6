"""The in-process path an agent's bytes take through the daemon, and the invariants checked on it.

bytes (in arbitrary chunks) -> the real `LineTransport` (bounded lines, `decode_line`,
`jsonrpc_problem`) -> the SDK `Connection`'s dispatch, mirrored in `dispatch` (a message with a
`method` goes to the handler, a request's `RequestError` becomes its error response, a
response is matched against the requests acp-tray sent: none here) -> the real `ClientHandler`
(v1 or v2) with a real `AgentHost` as its peer -> events -> the real `Daemon._handle` (`Router`
on a `FakeClock`, `HistoryWriter`, surfaces: the console line and the native notification's
content are built for every presentation) -> the history file, read back with `read_history`.

The daemon's own queue is left out: `Daemon._consume` would log and swallow an exception from
`_handle`; here every exception that escapes anything is collected as a failure instead.
Used by tests/fuzz and by benchmarks/fuzz_agent_surface.py.
"""

from __future__ import annotations

import asyncio
import io
import json
import math
import re
import time
import traceback
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

from acp import RequestError

from acp_tray.agents.client_handler import ClientHandler
from acp_tray.agents.host import AgentHost, AgentSpec, PermissionPolicy
from acp_tray.agents.host_options import HostOptions
from acp_tray.agents.transport import DEFAULT_MAX_LINE_BYTES, LineTransport, decode_line, without_meta
from acp_tray.app.compose import assemble
from acp_tray.logs.text import DESCRIPTION_LIMIT, NAME_LIMIT, TITLE_LIMIT
from acp_tray.notifiers.console import ConsoleNotifier, presentation_line
from acp_tray.notifiers.content import notification_of
from acp_tray.prefs.model import (
    AgentConfig,
    CoalescePrefs,
    DndPrefs,
    Preferences,
    RateLimitPrefs,
    SeverityPrefs,
    SeverityTable,
)
from acp_tray.presentation.router import Presentation
from acp_tray.protocol.jsonrpc import jsonrpc_problem
from acp_tray.protocol.notice import SeverityKind, severity_kind
from acp_tray.protocol.version import ProtocolVersion
from acp_tray.state.history import META_LIMIT, META_NOT_RECORDED, RAW_LIMIT, TEXT_LIMIT, HistoryWriter, read_history
from tests.fuzz.strategies import AGENT, Deep, Expect, Item, encode, same
from tests.support.clock import FakeClock

ROUTES = ("notify", "tray", "both", "none")
SUPPRESSED = (None, "muted", "dnd", "rate_limited", "coalesced")
DECISION_KEYS = ("route", "suppressed", "count", "notified", "tray")
# what a sanitised line may not contain: controls, bidi overrides, lone surrogates
_UNSAFE = re.compile("[\x00-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069\ufeff\ud800-\udfff]")
_UNSAFE_BODY = re.compile(
    "[\x00-\x09\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069\ufeff\ud800-\udfff]"
)


def preferences(kind: str) -> Preferences:
    """The preferences a batch runs under: the router's decisions differ, all of them are recorded."""
    if kind == "dnd":
        return Preferences(dnd=DndPrefs(enabled=True))
    if kind == "info_none":
        return Preferences(severity=SeverityTable(info=SeverityPrefs(route="none", timeout=5)))
    if kind == "muted":
        return Preferences(agents={AGENT: AgentConfig(command=["fuzz-agent"], mute=True)})
    if kind == "tight":  # everything repeats within the window and is over the rate limit
        return Preferences(rate_limit=RateLimitPrefs(burst=1, per=3600), coalesce=CoalescePrefs(window=3600))
    return Preferences()


class NullWriter:
    """The agent's stdin: what the transport would send back is not looked at here."""

    def write(self, data: bytes) -> None:
        pass

    async def drain(self) -> None:
        return None


@dataclass
class Run:
    """What came out of one stream."""

    prefs: str
    records: list[dict[str, Any]] = field(default_factory=list)
    unreadable: list[str] = field(default_factory=list)
    presented: list[Presentation] = field(default_factory=list)
    drops: list[str] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)  # exceptions that escaped (the SDK would log them)
    messages: int = 0  # routable JSON-RPC messages the transport delivered
    elapsed: float = 0.0  # seconds from the first byte to the last decision recorded (not the read-back)


async def dispatch(handler: ClientHandler, message: dict[str, Any]) -> str | None:
    """What the SDK's `Connection._process_message` does with one message; an escaped exception's traceback."""
    method = message.get("method")
    if method is None:
        return None  # a response: its id is not one acp-tray is waiting for, so the SDK drops it
    is_notification = "id" not in message
    try:
        await handler(method, message.get("params"), is_notification)
    except RequestError:
        if is_notification:
            return traceback.format_exc()
        # a request: the SDK answers it with this error (method not found)
    except Exception:
        return traceback.format_exc()
    return None


async def _feed(reader: asyncio.StreamReader, chunks: Iterable[bytes]) -> None:
    for chunk in chunks:
        reader.feed_data(chunk)
        await asyncio.sleep(0)  # let the transport read what is there: lines arrive split
    reader.feed_eof()


async def run_stream(
    chunks: Sequence[bytes],
    version: ProtocolVersion,
    prefs: str,
    history_path: Path,
    max_line_bytes: int = DEFAULT_MAX_LINE_BYTES,
    permission: str = "reject",
) -> Run:
    """Push the bytes through the daemon's real receive and presentation path; the history is read back.

    `permission`: the agent's policy. "reject" answers permission requests at once; with "ask"
    they wait for the person (and stay pending: run them as tasks, not awaited here).
    """
    run = Run(prefs)
    start = time.perf_counter()
    history = HistoryWriter(history_path, max_bytes=1 << 40)  # no rotation: every record stays to be checked
    console = ConsoleNotifier(io.StringIO())

    def surface(presentation: Presentation) -> None:
        run.presented.append(presentation)
        console.present(presentation)

    clock = FakeClock(datetime(2026, 11, 29, 12, 0).astimezone())
    daemon = assemble(preferences(prefs), history=history, surfaces=[surface], status=lambda event: None, clock=clock)
    host = AgentHost(
        AGENT, AgentSpec(command=["fuzz-agent"]), daemon.pump.handle, HostOptions(policy=PermissionPolicy(permission))
    )
    handler = ClientHandler(AGENT, daemon.pump.handle, version, peer=host.peer)
    reader = asyncio.StreamReader(limit=max_line_bytes)  # as `spawn_stdio_transport(limit=...)` makes it
    transport = LineTransport(
        reader,
        NullWriter(),  # type: ignore[arg-type]
        on_drop=lambda reason, line: run.drops.append(reason),
        max_line_bytes=max_line_bytes,
    )
    feeder = asyncio.create_task(_feed(reader, chunks))
    pending: list[asyncio.Task[str | None]] = []
    try:
        while True:
            try:
                message = await transport.receive()
            except Exception:
                run.errors.append(traceback.format_exc())
                break
            if message is None:
                break
            run.messages += 1
            if permission != "reject" and message.get("method") == "session/request_permission":
                pending.append(asyncio.create_task(dispatch(handler, message)))  # answered later, or never
                await asyncio.sleep(0)
                continue
            error = await dispatch(handler, message)
            if error is not None:
                run.errors.append(error)
        await feeder
    finally:
        for task in pending:
            task.cancel()
        await asyncio.gather(*pending, return_exceptions=True)
        await transport.close()
        history.close()
    run.elapsed = time.perf_counter() - start
    for record in read_history(history_path):
        if isinstance(record, dict):
            run.records.append(record)
        else:
            run.unreadable.append(record)
    return run


# invariants -------------------------------------------------------------------------------


def check(items: Sequence[Item], run: Run, *, presentations: bool = True, agent: str = AGENT) -> list[str]:
    """Everything wrong with a run, given what was sent (empty: all invariants hold)."""
    problems = [f"an exception escaped:\n{error}" for error in run.errors]
    problems += [f"unreadable history line: {line[:200]!r}" for line in run.unreadable]
    want_drops = sum(item.expect.drops for item in items)
    if len(run.drops) != want_drops:
        problems.append(f"{len(run.drops)} lines skipped ({sorted(set(run.drops))}), expected {want_drops}")
    expected = [(n, item.expect) for n, item in enumerate(items) if item.expect.record]
    if len(run.records) != len(expected):
        problems.append(f"{len(run.records)} history records, expected {len(expected)}")
    for (n, expect), record in zip(expected, run.records, strict=False):
        problem = record_problem(expect, record, run.prefs, agent)
        if problem:
            problems.append(
                f"item {n} ({expect.category}): {problem}\n  line: {items[n].line[:300]!r}\n  {record!r:.600}"
            )
            break
    if presentations:
        problems += presentation_problems(run)
    return problems


def record_problem(expect: Expect, record: dict[str, Any], prefs: str, agent: str = AGENT) -> str | None:
    """Why a history record is not what `expect` says it must be (None: it is)."""
    missing = [key for key in DECISION_KEYS if key not in record]
    if missing:
        return f"no {missing} in the record"
    if record.get("agent") != agent:
        return f"agent {record.get('agent')!r}"
    if expect.record == "own":
        ok = record.get("source") == "acp-tray" and record.get("title") == "Asked for input"
        return None if ok else "not acp-tray's own notice about the declined elicitation"
    if record.get("source") != "agent":
        return f"source {record.get('source')!r}"
    if expect.record == "malformed":
        return malformed_record_problem(expect, record)
    return notice_record_problem(expect, record, prefs)


def malformed_record_problem(expect: Expect, record: dict[str, Any]) -> str | None:
    """Why the record of a malformed update is not what `expect` says."""
    if record.get("kind") != "malformed":
        return f"kind {record.get('kind')!r}, expected malformed"
    for key, want in (
        ("field", expect.field),
        ("update", expect.variant),
        ("session_id", expect.session_id),
        ("severity", expect.severity),
        ("title", kept(expect.title)),
    ):
        if not same(record.get(key), want):
            return f"{key} {record.get(key)!r:.200}, expected {want!r:.200}"
    if not isinstance(record.get("reason"), str) or not record["reason"]:
        return "no reason"
    if record["route"] is not None or record["notified"] or record["tray"]:
        return "a malformed update was routed"
    raw = record.get("raw")
    if not isinstance(raw, str) or len(raw) > RAW_LIMIT + 1:
        return "raw missing or not bounded"
    return None


def notice_record_problem(expect: Expect, record: dict[str, Any], prefs: str) -> str | None:
    """Why the record of a notice is not what `expect` says: its fields exactly as sent, and its routing."""
    if record.get("kind") != "notice":
        return f"kind {record.get('kind')!r}, expected notice"
    for key, want in (
        ("session_id", expect.session_id),
        ("severity", expect.severity),
        ("title", kept(expect.title)),
        ("description", kept(expect.description)),
        ("meta", expect.meta),
    ):
        if key == "meta" and record.get("meta") == META_NOT_RECORDED and oversized(want):
            continue  # the history keeps everything else of a notice whose `_meta` is too big or deep
        if not same(record.get(key), want):
            return f"{key} {record.get(key)!r:.200}, expected {want!r:.200} (exactly as sent)"
    return decision_problem(record, prefs)


def kept(want: Any) -> Any:
    """What the history keeps of a title or description: at most TEXT_LIMIT characters, then "…"."""
    return want[:TEXT_LIMIT] + "…" if isinstance(want, str) and len(want) > TEXT_LIMIT else want


def oversized(meta: Any) -> bool:
    """A `_meta` the history may drop: too deep to serialise, or too large for one record."""
    if isinstance(meta, Deep):
        return True
    try:
        return len(encode(meta)) > META_LIMIT // 2
    except (RecursionError, ValueError, TypeError):
        return True


def decision_problem(record: dict[str, Any], prefs: str) -> str | None:
    """Whether the router's recorded decision is one the preferences allow."""
    route, suppressed, count = record["route"], record["suppressed"], record["count"]
    if route not in ROUTES or suppressed not in SUPPRESSED or type(count) is not int or count < 1:
        return f"decision {route!r} {suppressed!r} {count!r}"
    if type(record["notified"]) is not bool or type(record["tray"]) is not bool:
        return "notified/tray not booleans"
    if not isinstance(record.get("reason"), str) or not record["reason"]:
        return "no reason for its route"
    kind = severity_kind(record["severity"])
    if prefs == "muted" and (route, suppressed) != ("none", "muted"):
        return f"a muted agent's notice routed {route!r} ({suppressed!r})"
    if prefs == "info_none" and kind is SeverityKind.INFO and route != "none":
        return f"an info notice routed {route!r} where info goes nowhere"
    if prefs == "dnd" and record["notified"]:
        return "a native notification during do not disturb"
    if prefs in ("default", "tight", "dnd") and route != "both":
        return f"route {route!r}, expected both"
    if prefs == "tight" and record["notified"] and count > 1:
        return "a repeat notified again within the rate limit"
    return None


def presentation_problems(run: Run) -> list[str]:
    """Every routed record was presented, with safe text on every surface."""
    routed = [r for r in run.records if r.get("route") in ("notify", "tray", "both")]
    if len(routed) != len(run.presented):
        return [f"{len(run.presented)} presentations for {len(routed)} routed records"]
    problems = []
    for record, p in zip(routed, run.presented, strict=True):
        if (kept(p.title), p.severity, p.notify, p.tray) != (
            record["title"],
            record["severity"],
            record["notified"],
            record["tray"],
        ):
            problems.append(f"presentation {p!r:.300} differs from its record {record!r:.300}")
            break
        notification = notification_of(p)
        summary_limit = NAME_LIMIT + 2 + TITLE_LIMIT + len(f" ×{p.count}")
        line = presentation_line(p)
        for what, text, limit, unsafe in (
            ("summary", notification.summary, summary_limit, _UNSAFE),
            ("body", notification.body, DESCRIPTION_LIMIT, _UNSAFE_BODY),
            ("console line", line, 64 + TITLE_LIMIT + DESCRIPTION_LIMIT + 64, _UNSAFE),
        ):
            if len(text) > limit or unsafe.search(text):
                problems.append(f"unsafe or unbounded {what}: {text!r:.300}")
        if problems:
            break
    return problems


def reference_parse(line: bytes) -> tuple[bool, Any]:
    """What the standard library's parser makes of `line`: (True, the value), or (False, None) when it
    refuses it. Too deep for it: what is left without `_meta`, if that parses."""
    try:
        return True, json.loads(line)
    except RecursionError:
        shallow = without_meta(line)
        try:
            reference = json.loads(shallow) if shallow is not None else None
        except (ValueError, RecursionError):
            reference = None
        return reference is not None, reference
    except ValueError:
        return False, None


def decode_problem(line: bytes) -> str | None:
    """`decode_line` against the standard library's parser on one line (None: they agree)."""
    got = decode_line(line)
    parsed, reference = reference_parse(line)
    if not parsed:
        return None if isinstance(got, str) else f"decode_line took what json.loads refuses: {line[:200]!r}"
    if jsonrpc_problem(reference) is not None:
        return None if isinstance(got, str) else f"decode_line took a message that is not routable: {line[:200]!r}"
    if isinstance(got, str) or not json_equal(got, reference):
        return f"decode_line differs from json.loads ({got!r:.100}): {line[:200]!r}"
    return None


def decode_problems(lines: Iterable[bytes]) -> list[str]:
    """`decode_line` against the standard library's parser on the same lines (what the fallback promises)."""
    problems = []
    for raw in lines:
        for line in raw.split(b"\n"):
            line = line.strip()
            problem = decode_problem(line) if line else None
            if problem is not None:
                problems.append(problem)
    return problems


def json_equal(a: object, b: object) -> bool:
    """Exact JSON equality (types too; NaN equals NaN), without recursion: values may be deeply nested."""
    stack = [(a, b)]
    while stack:
        x, y = stack.pop()
        if type(x) is not type(y):
            return False
        if isinstance(x, dict):
            assert isinstance(y, dict)
            if set(x) != set(y):
                return False
            stack.extend((x[k], y[k]) for k in x)
        elif isinstance(x, list):
            assert isinstance(y, list)
            if len(x) != len(y):
                return False
            stack.extend(zip(x, y, strict=True))
        elif isinstance(x, float) and math.isnan(x):
            if not math.isnan(y):  # type: ignore[arg-type]
                return False
        elif x != y:
            return False
    return True
