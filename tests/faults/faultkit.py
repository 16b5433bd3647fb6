"""Helpers for the fault tests: a preferences file with agents, the daemon as a subprocess, the
history, and the agents' processes found through /proc (by the name each one carries in its
environment, so that two agents running the same program can be told apart).
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import sys
from pathlib import Path
from typing import Any

from acp_tray.files import paths
from acp_tray.state.history import read_history
from tests.conftest import ROOT, cli_env
from tests.daemon_process import Daemon, alive, carrying
from tests.daemon_process import until as until  # re-exported for the fault tests

HERE = Path(__file__).resolve().parent
SESSION_AGENT = ROOT / "tests" / "agents" / "session_agent.py"
DEAF_AGENT = HERE / "deaf_agent.py"
NAME_VARIABLE = "ACP_TRAY_FAULT_AGENT"


def agent_table(name: str, log: Path | None = None, script: Path = SESSION_AGENT, **settings: Any) -> str:
    """An `[agents.NAME]` table running `script` (ACP 1: no fallback connection at start)."""
    env = {NAME_VARIABLE: name, **settings.pop("env", {})}
    if log is not None:
        env["SESSION_AGENT_LOG"] = str(log)
    settings.setdefault("protocol", 1)
    lines = [f"[agents.{name}]", f"command = {json.dumps([sys.executable, str(script)])}"]
    lines.append("env = { " + ", ".join(f"{k} = {json.dumps(v)}" for k, v in env.items()) + " }")
    lines += [f"{key} = {json.dumps(value)}" for key, value in settings.items()]
    return "\n".join(lines) + "\n"


def write_config(text: str, notifier: str = "console") -> Path:
    path = paths.config_file()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(f'notifier = "{notifier}"\n# written by the person\n' + text, encoding="utf-8")
    return path


def start(daemons: list[Daemon], *connected: str, args: tuple[str, ...] = ("run", "--headless", "-v")) -> Daemon:
    daemon = Daemon(*args, env=cli_env(ACP_TRAY_DEMO_INTERVAL="0.05"))
    daemons.append(daemon)
    daemon.wait_for_line("control: ")
    daemon.wait_for_lines(*(f"  {name}  connected" for name in connected))
    return daemon


def history() -> list[dict[str, Any]]:
    return [r for r in read_history(paths.history_file()) if isinstance(r, dict)]


def titles(source: str = "acp-tray") -> list[str]:
    """What the person read, as every surface shows it: "agent: title"."""
    return [f"{r['agent']}: {r['title']}" for r in history() if r.get("source") == source]


def agent_pid(daemon: Daemon, name: str) -> int | None:
    """The live process of agent `name` among the daemon's children (None when there is none)."""
    found = agent_pids(daemon, name)
    assert len(found) <= 1, f"more than one live process for agent {name}: {found}"
    return found[0] if found else None


def agent_pids(daemon: Daemon, name: str) -> list[int]:
    """Every live (not zombie) child process of the daemon that carries agent `name`."""
    return carrying(daemon.children(), f"{NAME_VARIABLE}={name}")


def vm_rss_kib(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    raise AssertionError(f"no VmRSS for {pid}")


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
