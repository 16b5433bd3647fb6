"""Sign-in with a real agent subprocess (tests/agents/auth_agent.py, standard library only), ACP 1
and 2: "authentication required" at session/new, session/load (v2: resume) and session/prompt
makes the agent `needs sign-in` (its process kept, one SignInNeeded, no crash, no restart); a
sign-in lets what waited go on; every message acp-tray sent validates against the ACP schema."""

from __future__ import annotations

import asyncio
import json
import re
from pathlib import Path
from typing import Any

import pytest

from acp_tray.agents.host import AgentHost
from acp_tray.agents.host_options import HostOptions, HostServices
from acp_tray.agents.sessions import SessionStore
from acp_tray.agents.signin import SignInError
from acp_tray.agents.supervisor import supervise
from acp_tray.agents.turns import PromptJob
from acp_tray.backoff import BackoffPolicy
from acp_tray.events import AgentCrashed, AgentState, ReplyText, SignInNeeded, TurnProgress
from tests.support.event_log import EventLog
from tests.support.signin import assert_all_valid, auth_spec, received, status_states, wait_state


@pytest.fixture
async def cleanup() -> Any:
    tasks: list[asyncio.Task[Any]] = []
    yield tasks
    for task in tasks:
        task.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)


@pytest.mark.parametrize("protocol", [1, 2])
@pytest.mark.parametrize("at", ["new", "load"])
async def test_sign_in_needed_at_the_session_waits_then_an_agent_method_connects(
    tmp_path: Path, protocol: int, at: str, cleanup: list[asyncio.Task[Any]]
) -> None:
    log = EventLog()
    store = SessionStore(None)
    spec = auth_spec(tmp_path, protocol, at)
    host = AgentHost("locked", spec, log, HostOptions(protocol=protocol), HostServices(store=store))
    if at == "load":  # a session from an earlier run: v1 loads it, v2 resumes it
        store.put(host.default_key, "auth-earlier")
    task = asyncio.create_task(supervise(host, log, BackoffPolicy(initial=0.05, give_up_after=3)))
    cleanup.append(task)
    await wait_state(log, AgentState.NEEDS_SIGNIN)
    await asyncio.sleep(0.5)  # time for a restart storm, if there were one
    assert not task.done() and not log.of(AgentCrashed)
    assert status_states(log) == [AgentState.STARTING, AgentState.NEEDS_SIGNIN]
    [needed] = log.of(SignInNeeded)
    assert "Authentication required" in needed.reason and "(code -32000)" in needed.reason
    kinds = {m.method_id: m.kind for m in needed.methods}
    assert kinds == {
        "token": "agent", "refuse": "agent", "tui": "terminal", "broken-tui": "terminal", "key": "env_var",
        "sso": "_acme.sso",
    }  # fmt: skip
    assert [m.method_id for m in needed.methods if m.doable] == [
        "token",
        "refuse",
        "tui",
        "broken-tui",
    ]  # no key in its env

    with pytest.raises(
        SignInError, match=re.escape("Company SSO: ask IT. acp-tray cannot do this kind of sign-in (_acme.sso)")
    ):
        host.signin.choose("sso")  # shown, never sent
    with pytest.raises(SignInError, match=re.escape("API key needs AUTH_AGENT_KEY in locked's environment: keep")):
        host.signin.choose("key")  # not in its environment: not sent either
    with pytest.raises(SignInError, match=r"choose one.*token"):
        host.signin.choose(None)
    with pytest.raises(SignInError, match="the token service said no"):
        await host.sign_in(host.signin.choose("refuse"))
    assert host.signin.needed is not None and not host.connected.is_set()

    await host.sign_in(host.signin.choose("token"))
    await wait_state(log, AgentState.CONNECTED)
    assert host.session_id == ("auth-earlier" if at == "load" else host.session_id)
    sent = assert_all_valid(tmp_path, protocol)
    login = "auth/login" if protocol == 2 else "authenticate"
    attach = {"new": "session/new", "load": "session/resume" if protocol == 2 else "session/load"}[at]
    assert sent == ["initialize", attach, login, login, attach]  # refused, then token; the session asked again
    assert len(log.of(SignInNeeded)) == 1
    assert "sso" not in json.dumps([m.get("params") for m in received(tmp_path)])


@pytest.mark.parametrize("protocol", [1, 2])
async def test_an_env_var_method_is_sent_once_its_variable_is_in_the_agents_environment(
    tmp_path: Path, protocol: int, cleanup: list[asyncio.Task[Any]]
) -> None:
    """codex-acp's shape: `type: env_var` with `vars`; with the key in its environment (here the
    configured env; the keyring's goes the same way), `login NAME key` asks the agent to use it."""
    log = EventLog()
    spec = auth_spec(tmp_path, protocol, "new", AUTH_AGENT_KEY="k-123")
    host = AgentHost(
        "keyed",
        spec,
        log,
        HostOptions(protocol=protocol),
        HostServices(secrets=lambda name: {"AUTH_AGENT_KEY": "k-123"}),
    )
    cleanup.append(asyncio.create_task(host.run()))
    await wait_state(log, AgentState.NEEDS_SIGNIN)
    [needed] = log.of(SignInNeeded)
    assert [m.method_id for m in needed.methods if m.doable] == ["token", "refuse", "tui", "broken-tui", "key"]
    await host.sign_in(host.signin.choose("key"))
    await wait_state(log, AgentState.CONNECTED)
    assert (tmp_path / "token").read_text() == "signed in with a key\n"
    login = "auth/login" if protocol == 2 else "authenticate"
    assert [m["params"] for m in received(tmp_path) if m.get("method") == login] == [{"methodId": "key"}]
    assert_all_valid(tmp_path, protocol)


@pytest.mark.parametrize("protocol", [1, 2])
async def test_sign_in_needed_at_the_prompt_holds_the_queue_and_sends_it_after(
    tmp_path: Path, protocol: int, cleanup: list[asyncio.Task[Any]]
) -> None:
    log = EventLog()
    host = AgentHost("claude-like", auth_spec(tmp_path, protocol, "prompt"), log, HostOptions(protocol=protocol))
    cleanup.append(asyncio.create_task(host.run()))
    await wait_state(log, AgentState.CONNECTED)
    session = host.sessions[host.default_key]
    waited: list[TurnProgress] = []
    first = PromptJob(session.key, "hello once")  # nobody waits (--no-wait): kept for after the sign-in
    session.submit(first)
    await wait_state(log, AgentState.NEEDS_SIGNIN)
    watched = PromptJob(session.key, "env AUTH_AGENT_MODE", stream=waited.append)
    later = PromptJob(session.key, "hello twice")
    session.submit(watched)
    session.submit(later)
    await asyncio.sleep(0.3)
    assert session.queued == 3 and not first.result.done()  # held: one refused prompt is enough
    prompts = [m for m in received(tmp_path) if m.get("method") == "session/prompt"]
    assert len(prompts) == 1
    assert len(log.of(SignInNeeded)) == 1

    await host.sign_in(host.signin.choose("token"))
    outcomes = await asyncio.wait_for(asyncio.gather(first.result, watched.result, later.result), 30)
    assert [o.stop_reason for o in outcomes] == ["end_turn"] * 3
    assert status_states(log)[-2:] == [AgentState.NEEDS_SIGNIN, AgentState.CONNECTED]
    assert "".join(e.text for e in waited if isinstance(e, ReplyText)) == "unset"
    assert [m["params"]["prompt"][0]["text"] for m in received(tmp_path) if m.get("method") == "session/prompt"] == [
        "hello once", "hello once", "env AUTH_AGENT_MODE", "hello twice"
    ]  # fmt: skip
    assert_all_valid(tmp_path, protocol)


async def test_a_prompt_someone_waits_on_fails_with_how_to_sign_in(
    tmp_path: Path, cleanup: list[asyncio.Task[Any]]
) -> None:
    log = EventLog()
    host = AgentHost("claude-like", auth_spec(tmp_path, 1, "prompt"), log, HostOptions(protocol=1))
    cleanup.append(asyncio.create_task(host.run()))
    await wait_state(log, AgentState.CONNECTED)
    session = host.sessions[host.default_key]
    job = PromptJob(session.key, "hi", stream=lambda event: None)
    session.submit(job)
    outcome = await asyncio.wait_for(job.result, 30)
    assert outcome.error == "claude-like needs you to sign in: `acp-tray login claude-like`"
    assert host.signin.needed is not None and len(log.of(SignInNeeded)) == 1


async def test_terminal_methods_and_logout_through_the_plan(tmp_path: Path, cleanup: list[asyncio.Task[Any]]) -> None:
    """The terminal plan is the agent's own command with the method's args and env; run as the CLI
    runs it, a zero exit signs in, a non-zero one does not."""
    from acp_tray.agents.signin import terminal_plan

    log = EventLog()
    spec = auth_spec(tmp_path, 2, "new")
    host = AgentHost("tui", spec, log, HostOptions(protocol=2))
    cleanup.append(asyncio.create_task(host.run()))
    await wait_state(log, AgentState.NEEDS_SIGNIN)
    broken = terminal_plan(spec.command, spec.cwd, spec.env, host.signin.choose("broken-tui"))
    assert broken.argv == [*spec.command, "--login-fail"]
    process = await asyncio.create_subprocess_exec(*broken.argv, cwd=broken.cwd, env=broken.env)
    assert await process.wait() == 3
    good = terminal_plan(spec.command, spec.cwd, spec.env, host.signin.choose("tui"))
    assert good.env["AUTH_AGENT_MODE"] == "ok"  # v2's [{name, value}] env
    process = await asyncio.create_subprocess_exec(*good.argv, cwd=good.cwd, env=good.env)
    assert await process.wait() == 0
    host.signin.signed_in()  # what `login.finished` does on a zero exit
    await wait_state(log, AgentState.CONNECTED)
    assert host.signin.can_log_out
    await host.sign_out()
    assert not (tmp_path / "token").exists()
    assert assert_all_valid(tmp_path, 2)[-1] == "auth/logout"
