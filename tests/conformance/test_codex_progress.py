"""The real codex-acp 2.6.0 (@agentclientprotocol/codex-acp, ACP 2) without a network: with an API
key, its turn cannot reach the model API (here a closed port on 127.0.0.1) and codex retries,
saying so in `session_info_update._meta.codex.error` ("Reconnecting... 2/5"). acp-tray shows that
as the turn's state ("reconnecting, 2 of 5") in `sessions`, and a cancel ends the turn.
"""

from __future__ import annotations

import json
import os
import signal
import socket
from pathlib import Path
from typing import Any

from tests.conformance.hosting import host, quit_leaves_nothing, status_row, tree_processes
from tests.real_agents import npm_package_bin
from tests.support.daemons import DaemonProcess, cli, cli_started
from tests.support.waiting import until

NAME = "codex"
READY = 120


def closed_port() -> int:
    """A port on 127.0.0.1 nothing listens on (bound, then let go)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
    return port


def codex_session() -> dict[str, Any]:
    (row,) = [r for r in json.loads(cli("sessions", "--json").stdout) if r["agent"] == NAME]
    return dict(row)


def test_codex_retrying_without_a_network_is_shown_and_cancel_ends_it(
    tmp_path: Path, daemons: list[DaemonProcess]
) -> None:
    home = tmp_path / "home"
    (home / ".codex").mkdir(parents=True)
    env = {
        "HOME": str(home),
        "CODEX_HOME": str(home / ".codex"),
        "OPENAI_API_KEY": "fake",
        "CODEX_API_KEY": "fake",
        "OPENAI_BASE_URL": f"http://127.0.0.1:{closed_port()}/v1",
    }
    command = npm_package_bin("@agentclientprotocol/codex-acp", "codex-acp")
    daemon = host(NAME, command, tmp_path, env, daemons)
    try:
        ready = ("connected", "needs sign-in")
        until(lambda: status_row(NAME)["state"] in ready, timeout=READY, what="codex connected")
        if status_row(NAME)["state"] == "needs sign-in":  # its API key method reads OPENAI_API_KEY
            assert cli("login", NAME, "api-key", timeout=READY).returncode == 0
        until(lambda: status_row(NAME)["state"] == "connected", timeout=READY, what="codex signed in")
        waiting = cli_started("prompt", NAME, "hello")
        until(lambda: codex_session()["progress"].startswith("reconnecting"), timeout=READY, what="the retry shown")
        said = cli("sessions").stdout
        assert "reconnecting, " in said and " of " in said, said
        assert cli("cancel", NAME).returncode == 0
        waiting.communicate(timeout=60)
        until(lambda: codex_session()["progress"] == "", what="the turn's end")
        quit_leaves_nothing(daemon, str(tmp_path))
    finally:
        for pid in tree_processes(str(tmp_path)):
            os.kill(pid, signal.SIGKILL)
