"""Today's cost in the tray's tooltip, read back where each real tray host reads it (the
StatusNotifierItem's `Title`, the XEmbed icon's window name; see test_tray_tooltip.py), after a
turn of the SDK 2.4.0 usage agent (tests/interop/usage_agent.mjs) that cost 0.027 USD."""

from __future__ import annotations

import pytest

from tests.support.agents import agent_table
from tests.support.config import write_config
from tests.support.daemons import DaemonProcess, cli
from tests.support.repo import ROOT
from tests.support.tray_titles import read_back
from tests.support.waiting import until

USAGE_AGENT = ROOT / "tests" / "interop" / "usage_agent.mjs"


def test_the_tooltip_says_what_today_cost(node: str, tray_host: dict[str, str], request: pytest.FixtureRequest) -> None:
    host = request.node.callspec.params["tray_host"]
    write_config(agent_table("meter", [node, str(USAGE_AGENT), "--version=2"]), notifier="auto")
    daemon = DaemonProcess("run", env=tray_host)
    try:
        daemon.wait_for_line("meter  connected")
        until(lambda: "1/1 agent connected" in read_back(host, tray_host), timeout=15, what="the tooltip")
        assert "today" not in read_back(host, tray_host)  # nothing spent yet
        prompt = cli("prompt", "meter", "say", "hello", env=tray_host)
        assert prompt.returncode == 0, prompt.stderr
        until(lambda: "today 0.027 USD" in read_back(host, tray_host), timeout=15, what="today's cost in the tooltip")
        assert daemon.stop() == 0
    finally:
        if daemon.proc.poll() is None:
            daemon.proc.kill()
    assert "Traceback" not in daemon.stderr_text()
