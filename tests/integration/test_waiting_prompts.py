"""Prompts queued behind a sign-in are visible: `prompt --no-wait` to an agent that needs a sign-in
is listed by `sessions` and counted by `status` until its session opens, and `agents remove` fails
it with words that say the agent was removed. A real daemon and the stdlib auth agent."""

from __future__ import annotations

import sys
from pathlib import Path

from tests.support.agents import AUTH_AGENT
from tests.support.config import history, write_agent_config
from tests.support.daemons import DaemonProcess, cli, cli_env
from tests.support.waiting import until


def test_a_prompt_waiting_for_a_sign_in_is_listed_and_fails_plainly_when_its_agent_is_removed(
    daemons: list[DaemonProcess], tmp_path: Path
) -> None:
    env = {"AUTH_AGENT_AT": "new", "AUTH_AGENT_TOKEN": str(tmp_path / "token")}
    write_agent_config("locked", [sys.executable, str(AUTH_AGENT)], tmp_path, env)
    daemon = DaemonProcess("run", "--headless", env=cli_env())
    daemons.append(daemon)
    daemon.wait_for_line("locked  SIGN-IN")
    queued = cli("prompt", "--no-wait", "locked", "hello", "there")
    assert queued.returncode == 0 and queued.stdout.startswith("queued as prompt "), queued
    job = queued.stdout.split()[3]

    sessions = cli("sessions").stdout.splitlines()
    assert [line.split()[:4] for line in sessions] == [["locked", "default", "waiting", "-,"]], sessions
    assert "1 queued" in sessions[0] and str(tmp_path) in sessions[0]
    assert "needs sign-in 0 sessions, 1 queued" in " ".join(cli("status").stdout.split())

    removed = cli("agents", "remove", "locked")
    assert removed.returncode == 0, removed.stderr
    said = f"locked was removed (`acp-tray agents remove locked`) before prompt {job} could be sent; it was not sent"
    until(lambda: any(r.get("description") == said for r in history()), what="the prompt's failure")
    assert cli("sessions").stdout == "no sessions yet\n"
    assert not any("no agent called" in str(r.get("description")) for r in history())
