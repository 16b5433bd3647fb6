"""Proof under stress: whatever an agent writes, acp-tray survives, keeps going and records every decision.

Generated JSON-RPC lines (tests/fuzz/strategies.py: valid and broken notices, known v2 variants
whole and broken, unknown variants, other methods, responses to ids never sent, unroutable
JSON, garbage, invalid UTF-8, partial and split lines, deep nesting, megabyte strings) go
- in process, through the daemon's real receive and presentation path (tests/fuzz/harness.py),
  in v1 and v2, under several preferences;
- end to end, from a real agent subprocess to a real `Daemon` hosting it with a real `AgentHost`.
After each batch: no exception escaped anywhere; every line the transport could not route was
counted as skipped; every valid notice is in the history exactly once, with its strings exactly
as sent, in arrival order, with the router's decision; every malformed notice and broken known
variant has its `malformed` record; nothing else is recorded.

Sized for CI (about 30 s on a busy 2-core machine); derandomized, so a CI run is repeatable.
benchmarks/fuzz_agent_surface.py runs the same path over 100,000 messages.
"""

from __future__ import annotations

import asyncio
import json
import math
import os
import random
import tempfile
from dataclasses import replace
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, settings

from acp_tray.agents.transport import DEFAULT_MAX_LINE_BYTES
from acp_tray.app.compose import assemble
from acp_tray.events import AgentState
from acp_tray.prefs.model import AgentConfig, Preferences
from acp_tray.presentation.router import Presentation
from acp_tray.protocol.version import ProtocolVersion
from acp_tray.state.history import HistoryWriter, read_history
from tests.fuzz.harness import Run, check, decode_problems, run_stream
from tests.fuzz.strategies import Config, Expect, Item, RandomSource, Stream, gen_items, streams
from tests.support.agents import scripted_command
from tests.support.waiting import until_async

# ACP_TRAY_FUZZ_SCALE=N: N times the examples, freshly random each run (a deeper search than CI's)
SCALE = int(os.environ.get("ACP_TRAY_FUZZ_SCALE", "0"))
FUZZ = settings(
    derandomize=not SCALE,  # CI: the same examples on every run
    database=None,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.large_base_example],
)


def examples(count: int) -> settings:
    return settings(FUZZ, max_examples=count * max(SCALE, 1))


SMALL_LIMIT = 2048  # a line limit that generated lines often cross, without megabytes


def run_and_check(stream: Stream, max_line_bytes: int = DEFAULT_MAX_LINE_BYTES) -> Run:
    with tempfile.TemporaryDirectory() as tmp:
        run = asyncio.run(
            run_stream(stream.chunks, stream.version, stream.prefs, Path(tmp) / "history.jsonl", max_line_bytes)
        )
    problems = check(stream.items, run) + decode_problems(item.line for item in stream.items)
    assert not problems, "\n".join(problems)
    return run


@examples(600)
@given(stream=streams(max_items=25))
def test_generated_lines_through_the_daemon_path(stream: Stream) -> None:
    run_and_check(stream)


@examples(300)
@given(stream=streams(max_items=12, max_line_bytes=SMALL_LIMIT, huge_sizes=(500, 1800, 2000, 2100, 2500, 9000)))
def test_lines_over_the_limit_are_skipped_whole_and_the_next_one_arrives(stream: Stream) -> None:
    """The same with a 2 KiB line limit: over-long lines, split anywhere, are skipped whole."""
    run_and_check(stream, SMALL_LIMIT)


@examples(12)
@given(stream=streams(max_items=4, huge_weight=300, categories=("notice/valid", "garbage", "huge")))
def test_megabyte_lines_at_the_real_limit(stream: Stream) -> None:
    """Titles, descriptions and _meta of 0.2 to 5 MB around the real 4 MiB line limit."""
    run_and_check(stream)


# end to end: a real agent subprocess, a real daemon ------------------------------------------


E2E_ITEMS = 3000


def nasty_items() -> list[Item]:
    """What the generator makes only rarely, always in the end-to-end run."""

    def line(title: str, extra: str = "", ending: bytes = b"\n") -> bytes:
        """A warning notice line; `title` is JSON string content (escapes stay escapes)."""
        update = '{"sessionUpdate":"notice","severity":"warning","title":"' + title + '"' + extra + "}"
        text = '{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"scripted-1","update":' + update + "}}"
        return text.encode("utf-8", "surrogatepass") + ending

    def notice(title: str) -> Expect:
        return Expect("nasty", "notice", session_id="scripted-1", severity="warning", title=title)

    big, over = "x" * 3_900_000, "y" * (5 * 1024 * 1024)  # under and over the 4 MiB line limit
    skipped = Expect("nasty", drops=1)
    empty_title = Expect("nasty", "malformed", "scripted-1", "warning", "", field="update.title", variant="notice")
    request = b'{"jsonrpc":"2.0","id":"zz","method":"fs/read_text_file","params":{"path":"/etc/passwd"}}\n'
    return [
        Item(line(over), skipped),
        Item(line(big), notice(big)),
        Item(b"\xff\xfe\xfd not utf-8\n", skipped),
        Item(line(""), empty_title),
        Item(b"[" * 100_000 + b"\n", skipped),
        Item(line("deep", ',"_meta":' + "[" * 5000 + "]" * 5000), notice("deep")),  # only `_meta` is dropped
        Item(line("\\ud800 lone", ending=b"\r\n"), notice("\ud800 lone")),
        Item(b"\xef\xbb\xbf" + line("bom"), notice("bom")),
        Item(line("nul \\u0000"), notice("nul \x00")),
        Item(line("raw \x00 nul"), skipped),
        Item(line("NaN", ',"_meta":{"n":NaN}'), replace(notice("NaN"), meta={"n": math.nan})),
        Item(line("dup", ',"title":"last one wins"'), notice("last one wins")),
        Item(b"42\n", skipped),
        Item(b"[1,2]\n", skipped),
        Item(b'"x"\n', skipped),
        Item(b"null\n", skipped),
        Item(b'{"jsonrpc":"2.0","id":987654,"result":{"late":true}}\n', Expect("nasty")),
        Item(request, Expect("nasty")),
    ]


async def test_a_real_agent_writes_thousands_of_generated_lines_to_a_real_daemon(tmp_path: Path) -> None:
    seed = random.randrange(1 << 32) if SCALE else 20261129
    print(f"end-to-end seed {seed}")  # shown when the test fails
    items = gen_items(RandomSource(seed), Config(version=ProtocolVersion.V1, huge_weight=0), E2E_ITEMS * max(SCALE, 1))
    nasty = nasty_items()
    # the nasty lines spread through the generated ones
    for n, item in enumerate(nasty):
        items.insert((n + 1) * len(items) // (len(nasty) + 1), item)
    sentinel = {"sessionUpdate": "notice", "severity": "info", "title": "sentinel: the agent is still heard"}
    steps: list[dict[str, Any]] = [{"raw_hex": item.line.removesuffix(b"\n").hex()} for item in items]
    steps += [{"request": "_fuzz/still_there", "params": {}}, {"update": sentinel}]
    (tmp_path / "steps.json").write_text(json.dumps(steps), encoding="utf-8")
    log_path = tmp_path / "agent.log"
    agent = AgentConfig(
        command=scripted_command(),
        cwd=tmp_path,
        env={
            "SCRIPTED_AGENT_STEPS_FILE": str(tmp_path / "steps.json"),
            "SCRIPTED_AGENT_LOG": str(tmp_path / "agent.log"),
        },
        protocol=1,
        permission="reject",  # the agent's permission requests are answered at once
    )
    shown: list[Presentation] = []
    history = tmp_path / "history.jsonl"
    daemon = assemble(
        Preferences(agents={"bot": agent}),
        history=HistoryWriter(history, max_bytes=1 << 30),  # no rotation: every record stays to be checked
        surfaces=[shown.append],
        status=lambda event: None,
    )
    stop = asyncio.Event()
    task = asyncio.create_task(daemon.run(stop))
    try:
        await until_async(lambda: any(p.title == sentinel["title"] for p in shown) or task.done(), timeout=90)
        host = daemon.core.fleet.hosts["bot"]
        assert daemon.core.fleet.states["bot"].state is AgentState.CONNECTED and host.connected.is_set()
        log = [json.loads(line) for line in log_path.read_text(encoding="utf-8").splitlines()]
        answers = [entry["response"] for entry in log if "response" in entry]
        assert [a.get("error", {}).get("code") for a in answers] == [-32601]  # the daemon still answers it
        records = [r for r in read_history(history) if isinstance(r, dict)]
        sentinel_record = records.pop()
        assert sentinel_record["title"] == sentinel["title"]
        run = Run("default", records=records, drops=["?"] * host.dropped_lines)
        problems = check(items, run, presentations=False, agent="bot")
        assert not problems, "\n".join(problems)
        assert sum(1 for r in records if r["kind"] == "notice" and r["source"] == "agent") > 500
    finally:
        stop.set()
        await asyncio.wait_for(task, 30)
