"""The daemon's log file tells an agent's life at INFO: starting, connected, refused, needs sign-in,
crashed, failed, with their reasons (a daemon started at login leaves nothing else to read)."""

from __future__ import annotations

import json
import sys

from acp_tray.files import paths
from tests.support.agents import SESSION_AGENT
from tests.support.daemons import DaemonProcess, cli
from tests.support.waiting import until


def table(name: str, **env: str) -> str:
    command = json.dumps([sys.executable, str(SESSION_AGENT)])
    pairs = ", ".join(f"{k} = {json.dumps(v)}" for k, v in env.items())
    return f"[agents.{name}]\ncommand = {command}\nprotocol = 1\nenv = {{ {pairs} }}\n"


def log_text() -> str:
    path = paths.log_file()
    return path.read_text(encoding="utf-8") if path.exists() else ""


def test_the_log_file_tells_each_agents_life(daemons: list[DaemonProcess]) -> None:
    config = paths.config_file()
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text(
        'notifier = "console"\n'
        + table("fine")
        + table("refuser", SESSION_AGENT_REFUSE="Query closed before response received")
        + table("locked", SESSION_AGENT_AUTH="1")
        + table("crasher", SESSION_AGENT_EXIT_AT_START="2"),
        encoding="utf-8",
    )
    daemon = DaemonProcess("run", "--headless")  # no -v: the file is at INFO whatever the console shows
    daemons.append(daemon)
    expected = [
        "acp_tray.agent.fine: starting: ",
        "acp_tray.agent.fine: connected: session s1-",
        "acp_tray.agent.refuser: refused: it refused to start a session: Query closed before response received",
        "acp_tray.agent.refuser: refused; its last 4 stderr line(s):\n  refusing: setting up the model failed\n  {",
        "acp_tray.agent.locked: needs sign-in: Authentication required",
        "acp_tray.agent.crasher: failed: agent closed the connection during the handshake; exit code 2",
        "crasher crashed (agent closed the connection during the handshake; exit code 2",
    ]
    until(lambda: all(line in log_text() for line in expected), timeout=30, what=f"{expected} in the log")
    assert cli("quit").returncode == 0 and daemon.proc.wait(20) == 0
    assert "acp_tray.agent.fine: stopped: stopped by acp-tray" in log_text()
    assert not [line for line in daemon.err_lines if "INFO" in line]  # the console stays quiet
