"""The real codex-acp 2.6.0 (@agentclientprotocol/codex-acp, pinned in tests/real_agents), as a person
without credentials meets it, over the protocol it negotiates by default (ACP 2) and over
`protocol = 1`: it starts, asks for a sign-in (its `api-key` method, with a key in its environment:
no network is reached to sign in), connects, presents a real notice it sends offline with its
severity (its transport fallback when the model's WebSocket cannot be reached), and stops clean."""

from __future__ import annotations

import os
import signal
from pathlib import Path
from typing import Any

import pytest

from acp_tray.files import paths
from acp_tray.state.history import read_history
from tests.conformance.hosting import history_titles, host, quit_leaves_nothing, status_row, tree_processes
from tests.real_agents import npm_package_bin
from tests.support.daemons import DaemonProcess, cli
from tests.support.waiting import until

FALLBACK = "Falling back from WebSockets to HTTPS transport"


def agent_notices() -> list[dict[str, Any]]:
    records = [r for r in read_history(paths.history_file()) if isinstance(r, dict) and r.get("agent") == "codex"]
    return [r for r in records if r["source"] == "agent" and r["kind"] == "notice"]


@pytest.mark.parametrize(("protocol", "version"), [("auto", 2), (1, 1)], ids=["default-acp2", "protocol-1"])
def test_codex_acp_2_6_signs_in_connects_presents_its_notice_and_stops_clean(
    tmp_path: Path, daemons: list[DaemonProcess], protocol: str | int, version: int
) -> None:
    marker = str(tmp_path)
    home = tmp_path / "home"  # no one's credentials or settings
    (home / ".codex").mkdir(parents=True)
    env = {"HOME": str(home), "CODEX_HOME": str(home / ".codex"), "OPENAI_API_KEY": "sk-offline-test-key"}
    daemon = host("codex", npm_package_bin("@agentclientprotocol/codex-acp"), tmp_path, env, daemons, protocol)
    try:
        until(lambda: status_row("codex")["state"] == "needs sign-in", timeout=90, what="needs sign-in")
        assert history_titles("codex").count("Sign in to codex") == 1
        assert "api-key" in [m["id"] for m in status_row("codex")["sign_in_methods"]]

        signed = cli("login", "codex", "api-key", timeout=120)
        assert signed.returncode == 0, signed
        assert "connected (session " in signed.stdout and f"ACP {version})" in signed.stdout, signed.stdout
        row = status_row("codex")
        assert row["state"] == "connected" and row["sessions"] == 1 and row["detail"].endswith(f"ACP {version}"), row

        # offline, its turn cannot reach the model: it says so with a notice of its own, a warning
        assert cli("prompt", "codex", "--no-wait", "hello").returncode == 0
        (notice,) = until(
            lambda: [n for n in agent_notices() if n["title"].startswith(FALLBACK)], timeout=90, what="its notice"
        )
        assert notice["severity"] == "warning" and notice["notified"] is True, notice
        assert notice["route"] == "both" and notice["suppressed"] is None, notice

        cancelled = cli("cancel", "codex")
        assert cancelled.returncode == 0 and cancelled.stdout.strip() == "cancelling the running turn", cancelled
        until(lambda: status_row("codex")["busy"] == 0, timeout=30, what="the cancelled turn to end")
        assert "Crashed" not in history_titles("codex")
        quit_leaves_nothing(daemon, marker)
    finally:
        for pid in tree_processes(marker):  # a failed run must not leave them behind
            os.kill(pid, signal.SIGKILL)
