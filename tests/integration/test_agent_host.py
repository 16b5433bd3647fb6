"""AgentHost against real agent subprocesses that misbehave in every way we know of."""

from __future__ import annotations

import asyncio
import json
import os
import sys
from pathlib import Path
from typing import Any

import pytest

from acp_tray.agents.handshake import RunEnd
from acp_tray.agents.host import AgentHost, AgentSpec, PermissionPolicy
from acp_tray.agents.host_options import HostOptions
from acp_tray.events import AgentState, AgentStatus, EventSink, NoticeMalformed, NoticeReceived
from tests.support.agents import scripted_command
from tests.support.daemons import alive
from tests.support.event_log import EventLog
from tests.support.schemas import validator_for


# these agents speak ACP 1: offered 1 directly (the v2 offer and its fallback are tested on their own)
def v1_host(name: str, spec: AgentSpec, sink: EventSink, **options: Any) -> AgentHost:
    """A host that offers ACP 1 (and the other `options`, as HostOptions takes them)."""
    return AgentHost(name, spec, sink, HostOptions(protocol=1, **options))


def scripted(steps: list[dict[str, Any]], tmp_path: Path, **env: str) -> AgentSpec:
    steps_file = tmp_path / "steps.json"
    steps_file.write_text(json.dumps(steps), encoding="utf-8")
    return AgentSpec(
        command=scripted_command(),
        cwd=tmp_path,
        env={"SCRIPTED_AGENT_STEPS_FILE": str(steps_file), "SCRIPTED_AGENT_LOG": str(tmp_path / "agent.log"), **env},
    )


def agent_log(tmp_path: Path) -> list[dict[str, Any]]:
    path = tmp_path / "agent.log"
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def notice(severity: str, title: str, **fields: Any) -> dict[str, Any]:
    return {"update": {"sessionUpdate": "notice", "severity": severity, "title": title, **fields}}


def states(log: EventLog) -> list[AgentState]:
    return [e.state for e in log.of(AgentStatus)]


# `timeout` is passed on to EventLog.wait_for, which holds the deadline
async def run_until(host: AgentHost, log: EventLog, predicate: Any, timeout: float = 30.0) -> asyncio.Task[RunEnd]:  # noqa: ASYNC109
    task = asyncio.create_task(host.run())
    try:
        await log.wait_for(lambda: predicate() or task.done(), timeout)
    except BaseException:
        task.cancel()
        raise
    return task


async def stop(task: asyncio.Task[RunEnd]) -> None:
    task.cancel()
    await asyncio.gather(task, return_exceptions=True)


async def test_garbage_unknown_and_malformed_then_a_valid_notice(tmp_path: Path) -> None:
    steps: list[dict[str, Any]] = [
        {"raw": "this is not json"},
        {"raw": "42"},
        {"raw": '["an", "array"]'},
        {"raw_hex": "fffe00"},
        {"raw": '{"jsonrpc":"2.0","id":[1],"result":{}}'},
        {"update": {"sessionUpdate": "_acme.progress", "percent": 40}},
        {"update": {"sessionUpdate": "future_variant", "x": 1}},
        {"update": {"sessionUpdate": "agent_message_chunk", "content": {"type": "text", "text": "hi"}}},
        notice("warning", ""),  # malformed: empty title
        notice("info", "Valid after garbage", description="still alive"),
    ]
    log = EventLog()
    host = v1_host("hostile", scripted(steps, tmp_path), log)
    task = await run_until(host, log, lambda: log.of(NoticeReceived))
    received = log.of(NoticeReceived)
    assert [n.notice.title for n in received] == ["Valid after garbage"]
    assert received[0].notice.description == "still alive"
    malformed = log.of(NoticeMalformed)
    assert [(m.field, m.reason) for m in malformed] == [("update.title", "must not be empty")]
    assert host.dropped_lines == 5
    assert AgentState.CONNECTED in states(log) and task.done() is False  # the session lives on
    await stop(task)


async def test_notices_keep_arrival_order_under_a_burst(tmp_path: Path) -> None:
    count = 2000
    steps = [{"repeat": count, "update": {"sessionUpdate": "notice", "severity": "info", "title": "n{n}"}}]
    log = EventLog()
    host = v1_host("burst", scripted(steps, tmp_path), log)
    task = await run_until(host, log, lambda: len(log.of(NoticeReceived)) >= count, timeout=60)
    assert [e.notice.title for e in log.of(NoticeReceived)] == [f"n{i}" for i in range(count)]
    await stop(task)


async def test_identical_notices_are_all_delivered(tmp_path: Path) -> None:
    steps = [
        {"repeat": 3, "update": {"sessionUpdate": "notice", "severity": "error", "title": "Same", "description": "d"}}
    ]
    log = EventLog()
    host = v1_host("same", scripted(steps, tmp_path), log)
    task = await run_until(host, log, lambda: len(log.of(NoticeReceived)) >= 3)
    assert len(log.of(NoticeReceived)) == 3
    await stop(task)


async def test_chatty_stderr_does_not_block_the_agent(tmp_path: Path) -> None:
    # 4 MB of stderr is far beyond a pipe buffer: without draining, the agent blocks forever
    steps = [{"stderr": 4 * 1024 * 1024}, notice("info", "after chatter")]
    log = EventLog()
    host = v1_host("chatty", scripted(steps, tmp_path), log)
    task = await run_until(host, log, lambda: log.of(NoticeReceived))
    assert [e.notice.title for e in log.of(NoticeReceived)] == ["after chatter"]
    for _ in range(200):  # the drain takes a flood at its own pace (the agent was not held up: the notice came)
        if host.stderr.bytes_read >= 4 * 1024 * 1024:
            break
        await asyncio.sleep(0.05)
    assert host.stderr.bytes_read >= 4 * 1024 * 1024
    assert len(host.stderr.tail()) <= 50 and all(len(line) <= 500 for line in host.stderr.tail())
    await stop(task)


async def test_overlong_line_is_skipped_and_bounded(tmp_path: Path) -> None:
    big = json.dumps({"jsonrpc": "2.0", "method": "session/update", "params": {"x": "y" * 300_000}})
    steps = [{"raw": big}, notice("info", "after the long line")]
    log = EventLog()
    host = v1_host("long", scripted(steps, tmp_path), log, max_line_bytes=64 * 1024)
    task = await run_until(host, log, lambda: log.of(NoticeReceived))
    assert [e.notice.title for e in log.of(NoticeReceived)] == ["after the long line"]
    assert host.dropped_lines == 1
    await stop(task)


async def test_agent_gets_the_users_environment_plus_configured_env(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ACP_TRAY_TEST_INHERITED", "from the user's session")
    steps = [{"env": "ACP_TRAY_TEST_INHERITED"}, {"env": "ACP_TRAY_TEST_CONFIGURED"}]
    log = EventLog()
    spec = scripted(steps, tmp_path, ACP_TRAY_TEST_CONFIGURED="from config")
    host = v1_host("env", spec, log)
    task = await run_until(host, log, lambda: len(log.of(NoticeReceived)) >= 2)
    assert [e.notice.title for e in log.of(NoticeReceived)] == ["from the user's session", "from config"]
    await stop(task)


async def test_handshake_is_schema_valid_and_requests_we_do_not_support_get_errors(tmp_path: Path) -> None:
    steps = [
        {"request": "fs/read_text_file", "params": {"sessionId": "scripted-1", "path": "/etc/passwd"}},
        {"request": "terminal/create", "params": {"sessionId": "scripted-1", "command": "rm"}},
        {
            "request": "session/request_permission",
            "params": {
                "sessionId": "scripted-1",
                "toolCall": {"toolCallId": "t1"},
                "options": [
                    {"optionId": "yes", "name": "Allow", "kind": "allow_once"},
                    {"optionId": "no", "name": "Reject", "kind": "reject_once"},
                ],
            },
        },
        notice("info", "done"),
    ]
    log = EventLog()
    host = v1_host("requests", scripted(steps, tmp_path), log, policy=PermissionPolicy("reject"))
    task = await run_until(host, log, lambda: log.of(NoticeReceived))
    entries = agent_log(tmp_path)
    received = [e["received"] for e in entries if "received" in e]
    initialize = next(m for m in received if m.get("method") == "initialize")
    assert validator_for("v1", "InitializeRequest").is_valid(initialize["params"])
    assert initialize["params"]["clientCapabilities"] == {
        "session": {"notices": {}, "compaction": {}},
        "auth": {"terminal": True},
        "elicitation": {"form": {}, "url": {}},
        "subagents": {},
        "_meta": {"terminal-auth": True},
    }
    session_new = next(m for m in received if m.get("method") == "session/new")
    assert session_new["params"]["cwd"] == str(tmp_path)
    responses = [e["response"] for e in entries if "response" in e]
    assert [r.get("error", {}).get("code") for r in responses[:2]] == [-32601, -32601]
    assert responses[2]["result"] == {"outcome": {"outcome": "selected", "optionId": "no"}}
    await stop(task)


async def test_agent_that_exits_is_reported_with_its_code_and_stderr(tmp_path: Path) -> None:
    steps = [notice("info", "about to crash"), {"stderr": 16}, {"exit": 3}]
    log = EventLog()
    host = v1_host("crashy", scripted(steps, tmp_path), log)
    task = asyncio.create_task(host.run())
    await asyncio.wait_for(task, 30)  # run() returns: the daemon stays up
    exited = [e for e in log.of(AgentStatus) if e.state is AgentState.EXITED]
    assert len(exited) == 1 and "exit code 3" in exited[0].detail and "chatter" in exited[0].detail
    assert [e.notice.title for e in log.of(NoticeReceived)] == ["about to crash"]


async def test_agent_that_dies_during_handshake_fails_cleanly(tmp_path: Path) -> None:
    log = EventLog()
    spec = AgentSpec(command=[sys.executable, "-c", "import sys; sys.stderr.write('no api key\\n'); sys.exit(7)"])
    await asyncio.wait_for(v1_host("dies", spec, log).run(), 30)
    failed = [e for e in log.of(AgentStatus) if e.state is AgentState.FAILED]
    assert len(failed) == 1
    assert "closed the connection" in failed[0].detail and "exit code 7" in failed[0].detail
    assert "no api key" in failed[0].detail


async def test_missing_program_and_missing_cwd_fail_with_a_clear_message(tmp_path: Path) -> None:
    log = EventLog()
    await v1_host("nope", AgentSpec(command=["/nonexistent/agent-binary"]), log).run()
    await v1_host("nocwd", AgentSpec(command=scripted_command(), cwd=tmp_path / "gone"), log).run()
    details = [e.detail for e in log.of(AgentStatus) if e.state is AgentState.FAILED]
    assert "cannot start '/nonexistent/agent-binary'" in details[0] and "No such file" in details[0]
    assert "does not exist" in details[1]


async def test_silent_agent_times_out_the_handshake(tmp_path: Path) -> None:
    log = EventLog()
    spec = AgentSpec(command=[sys.executable, "-c", "import time; time.sleep(60)"])
    await asyncio.wait_for(v1_host("mute", spec, log, handshake_timeout=0.5).run(), 30)
    failed = [e for e in log.of(AgentStatus) if e.state is AgentState.FAILED]
    assert failed and "no answer to the handshake" in failed[0].detail


async def test_wrong_protocol_version_is_refused(tmp_path: Path) -> None:
    code = (
        "import sys, json\n"
        "line = sys.stdin.readline()\n"
        "msg = json.loads(line)\n"
        "print(json.dumps({'jsonrpc': '2.0', 'id': msg['id'], 'result': {'protocolVersion': 99}}), flush=True)\n"
        "sys.stdin.readline()\n"
    )
    log = EventLog()
    await asyncio.wait_for(v1_host("v99", AgentSpec(command=[sys.executable, "-c", code]), log).run(), 30)
    failed = [e for e in log.of(AgentStatus) if e.state is AgentState.FAILED]
    assert failed and "protocolVersion 99" in failed[0].detail


def own_children() -> set[str]:
    """This process's child processes (of its main thread), by pid."""
    return set(Path(f"/proc/{os.getpid()}/task/{os.getpid()}/children").read_text().split())


async def test_stopping_terminates_the_agent_process(tmp_path: Path) -> None:
    log = EventLog()
    host = v1_host("stubborn", scripted([{"sleep": 600}], tmp_path), log)
    before = own_children()  # e.g. the desktop session of earlier tests: not ours to check
    task = await run_until(host, log, lambda: AgentState.CONNECTED in states(log))
    children = own_children() - before
    assert children  # the agent
    await stop(task)
    assert states(log)[-1] is AgentState.STOPPED
    assert not [pid for pid in children if alive(int(pid))]
