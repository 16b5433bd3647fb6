"""Agents that are process trees (tests/agents/tree_agent.py: a launcher and the agent under it),
and the processes of a tree as each wrote its pid to a directory of the test's."""

from __future__ import annotations

import json
import os
import signal
import sys
from pathlib import Path

from acp_tray.agents.host import AgentSpec
from tests.support.agents import TREE_AGENT
from tests.support.daemons import alive


def tree(tmp_path: Path, mode: str) -> tuple[AgentSpec, Path]:
    pids = tmp_path / f"pids-{mode}"
    pids.mkdir()
    return AgentSpec([sys.executable, str(TREE_AGENT), mode], cwd=tmp_path, env={"TREE_AGENT_PIDS": str(pids)}), pids


def started(pids: Path) -> dict[int, str]:
    """Every process of the tree ever started: pid -> its role ("wrap"/"fork" launcher, "child")."""
    return {int(p.name): p.read_text() for p in pids.iterdir()}


def living(pids: Path) -> list[int]:
    return [pid for pid in started(pids) if alive(pid)]


def kill_left(pids: Path) -> None:
    for pid in living(pids):  # a failed test must not leave them behind
        os.kill(pid, signal.SIGKILL)


def tree_table(name: str, pids: Path) -> str:
    command = [sys.executable, str(TREE_AGENT), "wrap"]
    return f'[agents.{name}]\ncommand = {json.dumps(command)}\nenv = {{ TREE_AGENT_PIDS = "{pids}" }}\n'
