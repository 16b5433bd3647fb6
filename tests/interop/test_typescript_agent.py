"""Interop with the reference TypeScript SDK (`@agentclientprotocol/sdk`, pinned in package-lock.json).

The agent decides for itself, from the capabilities we send, whether it may send notices.
"""

from __future__ import annotations

import asyncio
from typing import Any

from acp_tray.agents.handshake import RunEnd
from acp_tray.agents.host import AgentHost, AgentSpec
from acp_tray.agents.host_options import HostOptions
from acp_tray.events import AgentState, AgentStatus, EventSink, NoticeReceived
from tests.support.agents import TS_AGENT
from tests.support.event_log import EventLog
from tests.support.waiting import until_async


# these agents speak ACP 1: offered 1 directly (the v2 offer and its fallback are tested on their own)
def v1_host(name: str, spec: AgentSpec, sink: EventSink, **options: Any) -> AgentHost:
    """A host that offers ACP 1 (and the other `options`, as HostOptions takes them)."""
    return AgentHost(name, spec, sink, HostOptions(protocol=1, **options))


async def host_ts_agent(node: str, advertise: bool) -> tuple[AgentHost, EventLog, asyncio.Task[RunEnd]]:
    log = EventLog()
    host = v1_host("ts", AgentSpec(command=[node, str(TS_AGENT)]), log, advertise_notices=advertise)
    task = asyncio.create_task(host.run())
    return host, log, task


async def test_notices_from_the_typescript_sdk_agent_are_received_in_order(node: str) -> None:
    _, log, task = await host_ts_agent(node, advertise=True)
    await log.wait_for(lambda: len(log.of(NoticeReceived)) >= 3)
    notices = [e.notice for e in log.of(NoticeReceived)]
    assert [(n.severity, n.title, n.description) for n in notices] == [
        ("info", "TS interop info", "from the TypeScript SDK"),
        ("warning", "TS interop warning", None),
        ("_interop.custom", "TS interop extension", None),
    ]
    assert {e.session_id for e in log.of(NoticeReceived)} == {"ts-session-1"}
    task.cancel()
    await asyncio.gather(task, return_exceptions=True)


async def test_without_the_capability_the_typescript_agent_sends_no_notices(node: str) -> None:
    host, log, task = await host_ts_agent(node, advertise=False)
    await log.wait_for(lambda: any(e.state is AgentState.CONNECTED for e in log.of(AgentStatus)))

    # The agent sends its fallback (an agent_message_chunk) *instead of* notices, right after
    # session/new; once it has arrived, any notice would already have arrived before it.
    await until_async(lambda: host.other_updates > 0, 30, "the fallback")
    assert log.of(NoticeReceived) == []
    task.cancel()
    await asyncio.gather(task, return_exceptions=True)
