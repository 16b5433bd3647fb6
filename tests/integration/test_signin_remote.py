"""Sign-in with a remote agent: the sign-in test agent (tests/agents/auth_agent.py, a real
subprocess) behind a real WebSocket server, one agent process per connection, ACP 1 and 2.

A remote agent's command is not acp-tray's to run, so acp-tray does not advertise terminal sign-in
to it (the schema: only a client that "can reproduce the configured agent invocation"); the agent
then offers none. Its agent methods work as for a local agent, and what waited goes on."""

from __future__ import annotations

import asyncio
import os
import sys
from pathlib import Path
from typing import Any

import pytest

from acp_tray.agents.host import AgentHost, AgentSpec
from acp_tray.agents.host_options import HostOptions
from acp_tray.agents.signin import SignInError
from acp_tray.agents.supervisor import supervise
from acp_tray.backoff import BackoffPolicy
from acp_tray.events import AgentCrashed, AgentState, SignInNeeded
from tests.support.agents import AUTH_AGENT
from tests.support.event_log import EventLog
from tests.support.remote_agents import stdio_agent_served
from tests.support.signin import assert_all_valid, received, status_states, wait_state

pytestmark = pytest.mark.usefixtures("no_proxies")


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
    with stdio_agent_served([sys.executable, str(AUTH_AGENT)], env) as url:
        host = AgentHost("far", AgentSpec(command=[], url=url), log, HostOptions(protocol=protocol))
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
