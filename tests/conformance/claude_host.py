"""The real Claude agent (@agentclientprotocol/claude-agent-acp) hosted by a daemon as a person runs
it, talking to a stand-in of its model API on 127.0.0.1 (tests/support/fake_anthropic.py), its stdio
tapped (tests/support/wire_tap.py): shared by the tests of Claude's turns, approvals and usage.

Claude Code runs offline here with: ANTHROPIC_BASE_URL (the stand-in), ANTHROPIC_API_KEY (any
value), a HOME of its own whose settings ask before each tool (`permissions.defaultMode =
"default"`: its own default, "auto", lets a model-side classifier decide), IS_SANDBOX=1 as root,
and CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1 and DISABLE_TELEMETRY=1 so that it calls nothing
but the model API.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from tests.conformance.hosting import host, status_row, tree_processes
from tests.real_agents import npm_package_bin
from tests.support.daemons import DaemonProcess
from tests.support.fake_anthropic import FakeAnthropic, fake_anthropic
from tests.support.repo import ROOT
from tests.support.schemas import sent_problems
from tests.support.waiting import until
from tests.support.wire_tap import exchanges

NAME = "claude"


PACKAGE = "@agentclientprotocol/claude-agent-acp"


TAP = ROOT / "tests" / "support" / "wire_tap.py"


READY = 120  # seconds for Claude Code to start (its 300 MB binary, on a busy machine)


PROTOCOLS = [pytest.param(None, id="default-acp2"), pytest.param(1, id="protocol-1")]


@dataclass
class Claude:
    api: FakeAnthropic
    daemon: DaemonProcess
    folder: Path  # its working directory, and the marker of its processes
    wire: Path  # the tap's log of its stdio

    def connected(self, version: int) -> None:
        until(lambda: status_row(NAME)["state"] == "connected", timeout=READY, what="claude connected")
        row = status_row(NAME)
        assert row["detail"].endswith(f"ACP {version}") and row["sessions"] == 1, row

    def sent_as_the_schema_says(self) -> None:
        """Every message acp-tray sent, on each of its connections, is valid in that connection's
        protocol (the version its `initialize` offered: a connection answered with another ends)."""
        connections: list[list[tuple[str, dict[str, Any]]]] = []
        for side, message in exchanges(self.wire):
            if side == "client" and message.get("method") == "initialize":
                connections.append([])
            connections[-1].append((side, message))
        assert connections, "acp-tray sent nothing"
        for connection in connections:
            version = f"v{connection[0][1]['params']['protocolVersion']}"
            sent = [m for side, m in connection if side == "client"]
            received = [m for side, m in connection if side == "agent"]
            assert not sent_problems(sent, received, version), sent_problems(sent, received, version)


def environment(home: Path, api: FakeAnthropic, key: bool) -> dict[str, str]:
    env = {
        "ANTHROPIC_BASE_URL": api.url,
        "HOME": str(home),
        "TMPDIR": str(home),  # its subagents' output files: not in the machine's /tmp
        "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
        "DISABLE_TELEMETRY": "1",
        "CLAUDE_CODE_MAX_RETRIES": "0",  # a refused key ends the turn at once, not after minutes of retries
    }
    if key:
        env["ANTHROPIC_API_KEY"] = "fake"
    if os.geteuid() == 0:
        env["IS_SANDBOX"] = "1"  # Claude Code refuses root otherwise
    return env


@contextlib.contextmanager
def claude(
    tmp_path: Path,
    daemons: list[DaemonProcess],
    protocol: int | None,
    refuse_credentials: bool = False,
    key: bool = True,
    hooks: dict[str, Any] | None = None,
) -> Iterator[Claude]:
    """Claude hosted by a daemon, talking to the stand-in (`hooks`: Claude Code's, in its settings);
    its processes killed at the end if left."""
    with fake_anthropic(refuse_credentials) as api:
        home = tmp_path / "home"
        (home / ".claude").mkdir(parents=True)
        settings = {"permissions": {"defaultMode": "default"}, "hooks": hooks or {}}  # ask before each tool
        (home / ".claude" / "settings.json").write_text(json.dumps(settings), encoding="utf-8")
        wire = tmp_path / "wire.jsonl"
        command = [sys.executable, str(TAP), str(wire), *npm_package_bin(PACKAGE, "claude-agent-acp")]
        daemon = host(NAME, command, tmp_path, environment(home, api, key), daemons, protocol or "auto")
        try:
            yield Claude(api, daemon, tmp_path, wire)
        finally:
            for pid in tree_processes(str(tmp_path)):  # a failed run must not leave them behind
                os.kill(pid, signal.SIGKILL)
