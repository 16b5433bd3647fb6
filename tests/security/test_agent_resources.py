"""Item 11 of the security review, the agent side: an agent that cannot be started because the
system is out of descriptors is started again when they come back, not left FAILED for good."""

from __future__ import annotations

import asyncio
import os
import resource
import sys
from pathlib import Path

from acp_tray.agents.host import AgentHost, AgentSpec
from acp_tray.agents.supervisor import supervise
from acp_tray.backoff import BackoffPolicy
from acp_tray.events import AgentState, AgentStatus
from tests.support.event_log import EventLog


async def test_an_agent_start_out_of_descriptors_is_retried(tmp_path: Path) -> None:
    log = EventLog()
    spec = AgentSpec(command=[sys.executable, "-m", "acp_tray", "demo-agent"], cwd=tmp_path)
    host = AgentHost("demo", spec, log)
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    in_use = len(os.listdir("/proc/self/fd"))
    resource.setrlimit(resource.RLIMIT_NOFILE, (in_use + 1, hard))  # no room for the agent's pipes
    task = asyncio.create_task(supervise(host, log, BackoffPolicy()))
    try:
        await log.wait_for(lambda: any("open files" in e.detail for e in log.of(AgentStatus)), 30)
    finally:
        resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))
    try:
        await log.wait_for(lambda: any(e.state is AgentState.CONNECTED for e in log.of(AgentStatus)), 30)
        assert not any(e.state is AgentState.FAILED for e in log.of(AgentStatus))
        assert not task.done()
    finally:
        task.cancel()
        await asyncio.gather(task, return_exceptions=True)


async def test_an_agent_flooding_requests_is_read_no_further_until_some_are_answered() -> None:
    from acp_tray.agents.transport import MAX_UNANSWERED, WatchedTransport

    class Inner:  # the agent's side: an endless stream of requests
        def __init__(self) -> None:
            self.sent: list[dict[str, object]] = []
            self.n = 0

        async def receive(self) -> dict[str, object]:
            self.n += 1
            return {"jsonrpc": "2.0", "id": self.n, "method": "fs/read_text_file", "params": {}}

        async def send(self, message: dict[str, object]) -> None:
            self.sent.append(message)

    inner = Inner()
    watched = WatchedTransport(inner)
    for _ in range(MAX_UNANSWERED):
        await watched.receive()
    blocked = asyncio.ensure_future(watched.receive())
    await asyncio.sleep(0.1)
    assert not blocked.done(), "read on while every request is still unanswered"
    await watched.send({"jsonrpc": "2.0", "id": 1, "error": {"code": -32601, "message": "no"}})
    unblocked = await asyncio.wait_for(blocked, 5)
    assert unblocked is not None and unblocked["id"] == MAX_UNANSWERED + 1
    await watched.send({"jsonrpc": "2.0", "method": "session/cancel", "params": {}})  # not an answer
    assert watched._unanswered == MAX_UNANSWERED
