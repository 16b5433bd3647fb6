"""The SDK's "Send loop failed" traceback when an agent has exited: one DEBUG line, not a console error.

A real exited process and the SDK's real `Connection`; the console is a WARNING handler as the daemon's is."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import sys
from collections.abc import Iterator
from typing import Any

import pytest
from acp.connection import Connection

from acp_tray.agents.sdk_log import AgentGoneFilter, quiet_agent_gone


class Console(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.lines: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.lines.append(self.format(record))


@pytest.fixture
def console() -> Iterator[Console]:
    root = logging.getLogger()
    handler, filters, level = Console(), list(root.filters), root.level
    root.addHandler(handler)
    root.setLevel(logging.WARNING)
    yield handler
    root.removeHandler(handler)
    root.filters[:] = filters
    root.setLevel(level)


async def _send_to_an_exited_agent() -> None:
    agent = await asyncio.create_subprocess_exec(
        sys.executable, "-c", "pass", stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE
    )
    await agent.wait()
    assert agent.stdin is not None and agent.stdout is not None
    await asyncio.sleep(0.1)  # the pipe's close is seen

    async def handler(method: str, params: Any, is_notification: bool) -> Any:
        return None

    connection = Connection(handler, agent.stdin, agent.stdout, listening=False)
    with contextlib.suppress(Exception):
        await asyncio.wait_for(connection.send_notification("initialize", {"protocolVersion": 1}), 2)
    await asyncio.sleep(0.1)
    with contextlib.suppress(Exception):
        await connection.close()


def test_the_sdk_logs_a_traceback_when_the_agent_has_gone(console: Console) -> None:
    """The scenario is real: without the filter the console gets the SDK's error and traceback."""
    logging.getLogger().filters[:] = [f for f in logging.getLogger().filters if not isinstance(f, AgentGoneFilter)]
    asyncio.run(_send_to_an_exited_agent())
    assert any("Send loop failed" in line and "ConnectionResetError" in line for line in console.lines)


def test_with_the_filter_the_console_stays_quiet(console: Console, caplog: pytest.LogCaptureFixture) -> None:
    quiet_agent_gone()
    quiet_agent_gone()  # once is enough
    assert sum(isinstance(f, AgentGoneFilter) for f in logging.getLogger().filters) == 1
    logging.getLogger().setLevel(logging.DEBUG)  # -vv: the one line is there, without a traceback
    with caplog.at_level(logging.DEBUG):
        asyncio.run(_send_to_an_exited_agent())
    assert console.lines == []
    said = [r for r in caplog.records if "was not sent" in r.getMessage()]
    assert len(said) == 1 and said[0].levelno == logging.DEBUG and said[0].exc_info is None
    assert "it had exited (ConnectionResetError)" in said[0].getMessage()
