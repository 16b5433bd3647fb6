"""Helpers for the fault tests: agents that carry their name, so that their processes are found
through /proc (two agents running the same program can be told apart), and the pids they log.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
from pathlib import Path
from typing import Any

from tests.support.agents import SESSION_AGENT, session_agent_table
from tests.support.daemons import DaemonProcess, alive, carrying

HERE = Path(__file__).resolve().parent
DEAF_AGENT = HERE / "deaf_agent.py"
NAME_VARIABLE = "ACP_TRAY_FAULT_AGENT"


def agent_table(name: str, log: Path | None = None, script: Path = SESSION_AGENT, **settings: Any) -> str:
    """An `[agents.NAME]` table running `script` (ACP 1: no fallback connection at start), carrying its
    name in its environment (found again by `agent_pids`)."""
    env = {NAME_VARIABLE: name, **settings.pop("env", {})}
    settings.setdefault("protocol", 1)
    return session_agent_table(name, log, env=env, script=script, **settings)


def agent_pid(daemon: DaemonProcess, name: str) -> int | None:
    """The live process of agent `name` among the daemon's children (None when there is none)."""
    found = agent_pids(daemon, name)
    assert len(found) <= 1, f"more than one live process for agent {name}: {found}"
    return found[0] if found else None


def agent_pids(daemon: DaemonProcess, name: str) -> list[int]:
    """Every live (not zombie) child process of the daemon that carries agent `name`."""
    return carrying(daemon.children(), f"{NAME_VARIABLE}={name}")


def logged_pids(log: Path) -> set[int]:
    """The pids a test agent wrote to its log (deaf_agent.py logs its pid with every line)."""
    if not log.exists():
        return set()
    return {json.loads(line)["pid"] for line in log.read_text(encoding="utf-8").splitlines() if '"pid"' in line}


def kill_all(pids: set[int]) -> None:
    """SIGKILL the test's own agent processes that are still there (orphans of a killed daemon too)."""
    for pid in pids:
        if alive(pid):
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)


def kill_deaf_agents(log: Path) -> None:
    """SIGKILL every deaf agent of this test: those that logged their pid, and any started so late
    (a restart just before the daemon was killed) that it had not logged yet: found by the log path
    in its environment, wherever its parent is now."""
    everyone = [int(entry.name) for entry in Path("/proc").iterdir() if entry.name.isdigit()]
    kill_all(logged_pids(log) | set(carrying(everyone, f"DEAF_AGENT_LOG={log}")))
