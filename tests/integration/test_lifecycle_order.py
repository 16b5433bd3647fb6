"""An agent's start, stop, restart and removal happen one after the other, in the order they were
asked for: two `agents restart` at once leave one agent running, and shown as connected.

The agent is a tree whose child ignores the end of its input and SIGTERM (as codex-acp's native
binary does), so stopping it takes a few seconds: long enough for a second restart that does not
wait for the first to start a new agent meanwhile, and for the old one's "stopped" to come last."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from acp_tray.files import paths
from tests.support.daemons import DaemonProcess, cli, cli_env
from tests.support.process_trees import kill_left, living, tree_table
from tests.support.repo import ROOT
from tests.support.waiting import until


def state_of(name: str) -> str:
    listed = cli("agents", "list", "--json")
    return str(next(r for r in json.loads(listed.stdout) if r["name"] == name)["state"])


def test_two_restarts_at_once_leave_one_agent_running_and_connected(
    tmp_path: Path, daemons: list[DaemonProcess]
) -> None:
    pids = tmp_path / "pids"
    pids.mkdir()
    config = paths.config_file()
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text('notifier = "console"\nprotocol = 1\n' + tree_table("tree", pids), encoding="utf-8")
    try:
        daemon = DaemonProcess("run", "--headless")
        daemons.append(daemon)
        daemon.wait_for_line("tree  connected")
        first = set(living(pids))
        command = [sys.executable, "-m", "acp_tray", "agents", "restart", "tree"]
        pipe = subprocess.PIPE
        restarts = [
            subprocess.Popen(command, stdout=pipe, stderr=pipe, text=True, env=cli_env(), cwd=ROOT) for _ in range(2)
        ]
        for restart in restarts:
            out, err = restart.communicate(timeout=60)
            assert restart.returncode == 0 and out.strip() == "tree: restarting", err
        # one restart after the other (the first's start may be stopped before it spawned anything):
        # the last start is the last word, and one tree runs, not the first
        until(lambda: not first & set(living(pids)), 30, "the first tree to be stopped")
        until(lambda: state_of("tree") == "connected" and len(living(pids)) == 2, 30, "the agent to be connected")
        assert state_of("tree") == "connected"  # and stays so: no old "stopped" comes after
        assert daemon.stop() == 0
    finally:
        kill_left(pids)
