"""Programs that are not ACP agents, said in one line and not restarted: a program that is not
there is refused by `agents add` before anything is saved; one that answers `initialize` with an
error (`cat` echoes acp-tray's own "Method not found" back as the answer) or never answers it
"does not speak ACP" (no crash loop). Real processes, and a real daemon for `agents add`."""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path

from acp_tray.agents.host import AgentHost, AgentSpec
from acp_tray.agents.host_options import HostOptions
from acp_tray.agents.supervisor import supervise
from acp_tray.backoff import BackoffPolicy
from acp_tray.events import AgentCrashed, AgentState, AgentStatus, AgentUnusable
from tests.support.config import write_config
from tests.support.daemons import DaemonProcess, cli, start
from tests.support.event_log import EventLog

NOT_ACP = "does not speak ACP (the Agent Client Protocol): "


async def _supervised(host: AgentHost, log: EventLog) -> None:
    await asyncio.wait_for(supervise(host, log, BackoffPolicy(initial=0.05)), 30)


async def test_cat_does_not_speak_acp_and_is_not_restarted(tmp_path: Path) -> None:
    log = EventLog()
    await _supervised(AgentHost("kitty", AgentSpec(["cat"], cwd=tmp_path), log), log)
    statuses = log.of(AgentStatus)
    assert [e.state for e in statuses].count(AgentState.STARTING) == 1  # one run: no restart loop
    assert log.of(AgentCrashed) == []
    assert statuses[-1].state is AgentState.FAILED
    assert statuses[-1].detail.startswith(NOT_ACP + "it answered `initialize` with an error (Method not found")
    assert [(e.title, e.detail.split(":")[0]) for e in log.of(AgentUnusable)] == [
        ("Not an ACP agent", "it does not speak ACP (the Agent Client Protocol)")
    ]


async def test_a_program_that_never_answers_does_not_speak_acp_and_is_not_restarted(tmp_path: Path) -> None:
    log = EventLog()
    spec = AgentSpec([sys.executable, "-c", "import time; time.sleep(60)"], cwd=tmp_path)
    await _supervised(AgentHost("mute", spec, log, HostOptions(handshake_timeout=0.5)), log)
    statuses = log.of(AgentStatus)
    assert [e.state for e in statuses].count(AgentState.STARTING) == 1 and log.of(AgentCrashed) == []
    assert statuses[-1].detail == (
        NOT_ACP + "no answer to the handshake within 0.5 s; if it was only slow to start, "
        "`acp-tray agents restart mute` tries again"
    )


async def test_an_agent_npx_is_still_fetching_is_slow_not_silent_and_is_started_again(tmp_path: Path) -> None:
    """Through a package runner (npx, uvx) the first start downloads the agent: no answer in time
    is retried as before, never "does not speak ACP"."""
    npx = tmp_path / "npx"
    npx.write_text(f"#!/bin/sh\nexec {sys.executable} -c 'import time; time.sleep(60)'\n", encoding="utf-8")
    npx.chmod(0o755)
    log = EventLog()
    spec = AgentSpec([str(npx), "-y", "--", "@example/slow-acp@1.0.0"], cwd=tmp_path)
    supervising = asyncio.create_task(
        supervise(AgentHost("slow", spec, log, HostOptions(handshake_timeout=0.5)), log, BackoffPolicy(initial=0.05))
    )
    try:
        await log.wait_for(lambda: [e.state for e in log.of(AgentStatus)].count(AgentState.STARTING) >= 2)
    finally:
        supervising.cancel()
        await asyncio.gather(supervising, return_exceptions=True)
    assert log.of(AgentUnusable) == []
    assert not any(NOT_ACP in e.detail for e in log.of(AgentStatus))


def test_agents_add_refuses_a_program_that_is_not_there_before_saving_it(daemons: list[DaemonProcess]) -> None:
    config = write_config()
    start(daemons)
    missing = cli("agents", "add", "x", "--", "/no/such/program", "--acp")
    assert missing.returncode != 0
    assert missing.stderr == "acp-tray: there is no program '/no/such/program': the file does not exist\n"
    unknown = cli("agents", "add", "y", "--", "no-such-program-anywhere")
    assert unknown.returncode != 0
    assert "there is no program called 'no-such-program-anywhere': it is not installed" in unknown.stderr
    assert "[agents.x]" not in config.read_text() and "[agents.y]" not in config.read_text()
    assert json.loads(cli("agents", "list", "--json").stdout) == []
