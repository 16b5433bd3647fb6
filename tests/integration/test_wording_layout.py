"""What the command line and the console show, laid out and worded for a person: `agents list`
and `status` columns as wide as their longest value, and an agent started again on ACP 1 said
as a sentence. A real daemon with real agents (the session agent speaks ACP 1 only)."""

from __future__ import annotations

import re
import sys
from pathlib import Path

from tests.support.agents import AUTH_AGENT, agent_table, session_agent_table
from tests.support.config import write_config
from tests.support.daemons import DaemonProcess, cli, cli_env


def test_agent_columns_fit_their_longest_value(daemons: list[DaemonProcess], tmp_path: Path) -> None:
    locked = agent_table(
        "locked", [sys.executable, str(AUTH_AGENT)], {"AUTH_AGENT_TOKEN": str(tmp_path / "token")}, cwd=str(tmp_path)
    )
    write_config(session_agent_table("claude-code-acp-long", tmp_path / "one.log") + locked)
    daemon = DaemonProcess("run", "--headless", env=cli_env())
    daemons.append(daemon)
    daemon.wait_for_lines("claude-code-acp-long  connected", "locked  SIGN-IN")
    for command in (("agents", "list"), ("status",)):
        lines = [line for line in cli(*command).stdout.splitlines() if line.startswith("  ") and line[2] != " "]
        assert len(lines) == 2, lines
        state_at = {line.index("connected") if "connected" in line else line.index("needs sign-in") for line in lines}
        count_at = {re.search(r"\d+ sessions?", line).start() for line in lines}  # type: ignore[union-attr]
        assert len(state_at) == 1 and len(count_at) == 1, lines  # each column starts at one place
        for line in lines:  # and a gap of two spaces or more before it, after the longest value too
            assert line[min(state_at) - 2 : min(state_at)] == "  " and line[min(count_at) - 2 : min(count_at)] == "  "


def test_an_agent_started_again_on_acp_1_is_said_as_a_sentence(daemons: list[DaemonProcess], tmp_path: Path) -> None:
    write_config(session_agent_table("one", tmp_path / "one.log"))
    daemon = DaemonProcess("run", "--headless", env=cli_env())
    daemons.append(daemon)
    line = daemon.wait_for_line("  one  starting again")
    assert line.endswith("  one  starting again, offering ACP 1: it speaks ACP 1 only"), line
    daemon.wait_for_line("  one  connected")
