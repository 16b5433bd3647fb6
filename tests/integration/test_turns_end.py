"""Every turn ends: a v2 prompt answered the v1 way, a cancel the agent never confirms, a restart
with prompts still queued. Real agent subprocesses: the Python SDK's own `echo_agent.py` (it
echoes whatever protocol version it is offered) and tests/agents/session_agent.py."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path
from typing import Any

import pytest

from acp_tray.agents import turns
from acp_tray.agents.host import AgentHost, AgentSpec
from acp_tray.agents.host_options import HostOptions, HostServices
from acp_tray.agents.supervisor import supervise
from acp_tray.agents.turns import PromptJob
from acp_tray.agents.versions import VersionMemory
from acp_tray.backoff import BackoffPolicy
from acp_tray.events import AgentStatus, ReplyText, TurnEnded, TurnProgress
from tests.real_agents import sdk_example
from tests.support.agents import SESSION_AGENT
from tests.support.event_log import EventLog


async def connected(host: AgentHost, log: EventLog) -> asyncio.Task[Any]:
    task = asyncio.create_task(host.run())
    await log.wait_for(lambda: host.connected.is_set() or task.done(), 30)
    assert host.connected.is_set(), host.last_detail
    return task


async def stop(task: asyncio.Task[Any]) -> None:
    task.cancel()
    await asyncio.gather(task, return_exceptions=True)


async def test_the_sdk_echo_agent_pinned_to_v2_still_ends_its_turn_and_is_offered_1_once_auto(
    tmp_path: Path,
) -> None:
    versions = VersionMemory(tmp_path / "versions.json")
    log = EventLog()
    spec = AgentSpec(sdk_example("echo_agent.py"), cwd=tmp_path)
    host = AgentHost(
        "echo", spec, log, HostOptions(protocol=2), HostServices(versions=versions)
    )  # pinned: the echo is not caught
    task = await connected(host, log)
    try:
        assert int(host.version) == 2  # it echoed the offer
        session = host.sessions[host.default_key]
        job = PromptJob(session.key, "hello")
        session.submit(job)
        outcome = await asyncio.wait_for(job.result, 20)  # on main: never (no state_update idle comes)
        assert outcome.stop_reason == "end_turn" and outcome.error is None
        assert [(e.stop_reason, e.error) for e in log.of(TurnEnded)] == [("end_turn", None)]
    finally:
        await stop(task)
    # pinned to 2, nothing is remembered: "auto" would have fallen back at once (below)
    assert VersionMemory(tmp_path / "versions.json").version("echo", spec.describe()) is None


async def test_the_sdk_echo_agent_offered_2_is_caught_echoing_and_runs_as_v1(tmp_path: Path) -> None:
    versions = VersionMemory(tmp_path / "versions.json")
    log = EventLog()
    spec = AgentSpec(sdk_example("echo_agent.py"), cwd=tmp_path)
    host = AgentHost("echo", spec, log, services=HostServices(versions=versions))  # "auto": offered 2
    runner = asyncio.create_task(supervise(host, log, BackoffPolicy(give_up_after=1)))
    try:
        await log.wait_for(lambda: host.connected.is_set() or runner.done(), 30)
        assert int(host.version) == 1  # a fresh connection offering 1, before any turn
        assert any("in ACP 1's shape" in e.detail for e in log.of(AgentStatus))
        assert VersionMemory(tmp_path / "versions.json").version("echo", spec.describe()) == 1
        chunks: list[TurnProgress] = []
        session = host.sessions[host.default_key]
        job = PromptJob(session.key, "hello again", stream=chunks.append)
        session.submit(job)
        assert (await asyncio.wait_for(job.result, 20)).stop_reason == "end_turn"
        assert "".join(c.text for c in chunks if isinstance(c, ReplyText)) == "hello again"
    finally:
        await stop(runner)


@pytest.mark.parametrize("protocol", [1, 2])
async def test_a_cancel_the_agent_never_confirms_still_ends_the_turn(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, protocol: int
) -> None:
    monkeypatch.setattr(turns, "CANCEL_GRACE", 0.5, raising=False)  # main has none: it waits for ever
    log = EventLog()
    env = {"SESSION_AGENT_PROTOCOL": str(protocol)}
    host = AgentHost(
        "deaf",
        AgentSpec([sys.executable, str(SESSION_AGENT)], cwd=tmp_path, env=env),
        log,
        HostOptions(protocol=protocol),
    )
    task = await connected(host, log)
    try:
        session = host.sessions[host.default_key]
        hung, after = PromptJob(session.key, "hang"), PromptJob(session.key, "say next")
        session.submit(hung)
        session.submit(after)
        await log.wait_for(lambda: session.current is hung, 10)
        assert await session.cancel()
        assert (await asyncio.wait_for(hung.result, 10)).stop_reason == "cancelled"
        # the queue moves on: the next prompt runs
        assert (await asyncio.wait_for(after.result, 10)).stop_reason == "end_turn"
        assert [e.stop_reason for e in log.of(TurnEnded)] == ["end_turn"]  # a cancelled turn says nothing
    finally:
        await stop(task)


async def test_a_restart_fails_the_running_and_queued_prompts_with_a_message(tmp_path: Path) -> None:
    log = EventLog()
    host = AgentHost("bot", AgentSpec([sys.executable, str(SESSION_AGENT)], cwd=tmp_path), log, HostOptions(protocol=1))
    task = await connected(host, log)
    session = host.sessions[host.default_key]
    jobs = [PromptJob(session.key, "hang"), PromptJob(session.key, "say queued")]  # nobody waits: --no-wait
    for job in jobs:
        session.submit(job)
    await log.wait_for(lambda: session.current is jobs[0], 10)
    await stop(task)  # what `agents restart` and a removal do to the running host
    errors = [e.error for e in log.of(TurnEnded)]
    assert errors == [
        "interrupted: acp-tray stopped or restarted the agent",
        "not run: acp-tray stopped or restarted the agent",
    ]
    assert [job.result.result().error for job in jobs] == errors
