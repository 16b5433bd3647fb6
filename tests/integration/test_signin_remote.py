"""Sign-in with a remote agent: the sign-in test agent (tests/agents/auth_agent.py, a real
subprocess) behind a real WebSocket server, one agent process per connection, ACP 1 and 2.

A remote agent's command is not acp-tray's to run, so acp-tray does not advertise terminal sign-in
to it (the schema: only a client that "can reproduce the configured agent invocation"); the agent
then offers none. Its agent methods work as for a local agent, and what waited goes on."""

from __future__ import annotations

import asyncio
import contextlib
import os
import sys
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from websockets.asyncio.server import ServerConnection, serve

from acp_tray.agents.host import AgentHost, AgentSpec
from acp_tray.agents.signin import SignInError
from acp_tray.agents.supervisor import BackoffPolicy, supervise
from acp_tray.events import AgentCrashed, AgentState, SignInNeeded
from tests.support.agents import AUTH_AGENT
from tests.support.event_log import EventLog
from tests.support.signin import assert_all_valid, received, status_states, wait_state

pytestmark = pytest.mark.usefixtures("no_proxies")


@contextlib.asynccontextmanager
async def stdio_agent_over_websocket(command: list[str], env: dict[str, str]) -> AsyncIterator[str]:
    """A stdio agent served over WebSocket: each connection starts the agent and relays one
    JSON-RPC message per text frame, a line each way. Yields the ws:// URL."""
    processes: list[asyncio.subprocess.Process] = []

    async def relay(ws: ServerConnection) -> None:
        agent = await asyncio.create_subprocess_exec(
            *command, stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE, env=env
        )
        processes.append(agent)
        assert agent.stdin is not None and agent.stdout is not None
        stdin, stdout = agent.stdin, agent.stdout

        async def up() -> None:
            async for frame in ws:
                text = frame if isinstance(frame, str) else frame.decode()
                stdin.write(text.strip().encode() + b"\n")
                await stdin.drain()

        async def down() -> None:
            while line := await stdout.readline():
                await ws.send(line.decode().strip())

        tasks = [asyncio.create_task(up()), asyncio.create_task(down())]
        try:
            await asyncio.wait(tasks, return_when=asyncio.FIRST_COMPLETED)
        finally:
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)
            with contextlib.suppress(ProcessLookupError):
                agent.kill()
            await agent.wait()

    async with serve(relay, "127.0.0.1", 0) as server:
        port = server.sockets[0].getsockname()[1]
        try:
            yield f"ws://127.0.0.1:{port}/acp"
        finally:
            for agent in processes:
                with contextlib.suppress(ProcessLookupError):
                    agent.kill()


def initialize_sent(tmp_path: Path) -> dict[str, Any]:
    return next(m["params"] for m in received(tmp_path) if m.get("method") == "initialize")


@pytest.mark.parametrize("protocol", [1, 2])
async def test_a_remote_agent_is_offered_no_terminal_sign_in_and_an_agent_method_signs_it_in(
    tmp_path: Path, protocol: int
) -> None:
    env = {
        **os.environ,
        "AUTH_AGENT_PROTOCOL": str(protocol),
        "AUTH_AGENT_AT": "new",
        "AUTH_AGENT_TOKEN": str(tmp_path / "token"),
        "AUTH_AGENT_LOG": str(tmp_path / "agent.jsonl"),
    }
    log = EventLog()
    async with stdio_agent_over_websocket([sys.executable, str(AUTH_AGENT)], env) as url:
        host = AgentHost("far", AgentSpec(command=[], url=url), log, protocol=protocol)
        task = asyncio.create_task(supervise(host, log, BackoffPolicy(initial=0.05, give_up_after=3)))
        try:
            await wait_state(log, AgentState.NEEDS_SIGNIN)
            await asyncio.sleep(0.5)  # time for a restart storm, if there were one
            assert not task.done() and not log.of(AgentCrashed)
            assert status_states(log) == [AgentState.STARTING, AgentState.NEEDS_SIGNIN]

            sent = initialize_sent(tmp_path)
            capabilities = sent["capabilities"] if protocol == 2 else sent["clientCapabilities"]
            assert not capabilities["auth"].get("terminal"), capabilities  # not advertised: not ours to run
            [needed] = log.of(SignInNeeded)
            kinds = {m.method_id: m.kind for m in needed.methods}
            assert kinds == {"token": "agent", "refuse": "agent", "key": "env_var", "sso": "_acme.sso"}
            assert [m.method_id for m in needed.methods if m.doable] == ["token", "refuse"]
            with pytest.raises(SignInError, match="API key needs AUTH_AGENT_KEY in a remote agent's environment"):
                host.signin.choose("key")

            await host.sign_in(host.signin.choose("token"))
            await wait_state(log, AgentState.CONNECTED)
            assert host.session_id is not None
            login = "auth/login" if protocol == 2 else "authenticate"
            assert assert_all_valid(tmp_path, protocol) == ["initialize", "session/new", login, "session/new"]
            assert (tmp_path / "token").exists()  # the agent's own sign-in happened
        finally:
            task.cancel()
            await asyncio.gather(task, return_exceptions=True)
