"""What an agent wrote, as a person is shown it: one stderr tail per run of the agent (a restarted
agent's hint and log quote only its current run), and a plain-text line it printed on stdout
instead of JSON-RPC quoted like a stderr line (without its terminal sequences). Real processes:
an agent script run by a host, and a real daemon."""

from __future__ import annotations

import asyncio
import json
import logging
import sys
from pathlib import Path

import pytest

from acp_tray.agents.host import AgentHost, AgentSpec
from acp_tray.agents.host_options import HostOptions
from acp_tray.events import AgentState, AgentStatus
from tests.support.agents import AGENTS, agent_table
from tests.support.config import write_config
from tests.support.daemons import DaemonProcess, cli, cli_env
from tests.support.event_log import EventLog

RETIRED = AGENTS / "retired_agent.py"


def _crashing(runs: Path) -> list[str]:
    """A program that says which run it is on stderr (the first run three times) and exits 1."""
    code = (
        "import pathlib, sys\n"
        f"p = pathlib.Path({str(runs)!r})\n"
        "n = int(p.read_text()) + 1 if p.exists() else 1\n"
        "p.write_text(str(n))\n"
        "sys.stderr.write(f'run {n}: No model configured\\n' * (3 if n == 1 else 1))\n"
        "sys.exit(1)\n"
    )
    return [sys.executable, "-c", code]


async def test_a_restarted_agent_has_a_stderr_tail_of_its_own_run(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    log = EventLog()
    host = AgentHost("fast", AgentSpec(_crashing(tmp_path / "runs"), cwd=tmp_path), log, HostOptions(protocol=1))
    await asyncio.wait_for(host.run(), 30)
    with caplog.at_level(logging.INFO, logger="acp_tray.agent.fast"):
        await asyncio.wait_for(host.run(), 30)  # as the supervisor restarts it
    failed = [e.detail for e in log.of(AgentStatus) if e.state is AgentState.FAILED]
    assert len(failed) == 2 and "last stderr: run 1: No model configured" in failed[0]
    assert "last stderr: run 2: No model configured" in failed[1] and "run 1" not in failed[1]
    assert host.stderr.tail() == ["run 2: No model configured"]
    assert "its last 1 stderr line(s):\n  run 2: No model configured" in caplog.text
    assert "run 1" not in caplog.text


def test_a_program_that_prints_a_line_and_exits_is_quoted(daemons: list[DaemonProcess], tmp_path: Path) -> None:
    write_config(agent_table("retired", [sys.executable, str(RETIRED)], cwd=str(tmp_path)))
    daemon = DaemonProcess("run", "--headless", env=cli_env())
    daemons.append(daemon)
    line = daemon.wait_for_line("retired  FAILED")
    said = "last output: retired-cli is no longer maintained; install retired-code instead"
    assert "closed the connection during the handshake" in line and "exit code 0" in line and said in line, line
    row = next(r for r in json.loads(cli("agents", "list", "--json").stdout) if r["name"] == "retired")
    assert said in row["detail"] and "\x1b" not in row["detail"] and "[33m" not in row["detail"]
