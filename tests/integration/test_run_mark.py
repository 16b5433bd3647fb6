"""The run mark (`agents/leftovers.py`) after a daemon is killed outright: the next `acp-tray run`
ends the agents it left running, and nothing else: not the terminal window a sign-in button
opened (a real xterm under Xvfb), not an agent that tried to set the mark itself (its configured
`env` cannot replace it). And a state file that is not the daemon's own (a FIFO, a directory)
neither hangs nor crashes the start."""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import sys
from pathlib import Path
from typing import Any

import pytest

from acp_tray.files import paths
from tests.support.agents import TREE_AGENT, auth_agent_table
from tests.support.daemons import DaemonProcess, agent_state, alive, cli_env
from tests.support.dunst_menu import pick
from tests.support.process_trees import kill_left, living, tree_table
from tests.support.waiting import until

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the reaper reads /proc")
REAPED = "agent processes left running by a daemon that did not stop cleanly"


def children_of(pid: int) -> list[int]:
    found = []
    for task in Path(f"/proc/{pid}/task").iterdir():
        found += [int(child) for child in (task / "children").read_text().split()]
    return found


def comm(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/comm").read_text().strip()
    except OSError:
        return ""


def environ(pid: int) -> dict[str, str]:
    pairs = Path(f"/proc/{pid}/environ").read_bytes().split(b"\0")
    return dict(p.decode(errors="replace").split("=", 1) for p in pairs if b"=" in p)


def killed(daemon: DaemonProcess) -> None:
    """As the OOM killer does it: nothing of the daemon's own shutdown runs."""
    daemon.proc.kill()
    daemon.proc.wait()


def test_a_sign_in_terminal_outlives_the_next_start_after_a_crash_and_the_agents_do_not(
    desktop: Any,
    dmenu: Path,
    tmp_path: Path,
    daemons: list[DaemonProcess],
) -> None:
    if shutil.which("xterm") is None:
        pytest.fail("install the Debian package xterm (make test does, as root)")
    pids = tmp_path / "pids"
    pids.mkdir()
    config = tmp_path / "config.toml"
    config.write_text(
        'notifier = "freedesktop"\n\n' + auth_agent_table("tui", tmp_path / "tui") + tree_table("tree", pids),
        encoding="utf-8",
    )
    env = cli_env(**desktop.env, TERMINAL="xterm")
    xterms: list[int] = []
    try:
        first = DaemonProcess("run", "--config", str(config), env=env)
        daemons.append(first)
        until(
            lambda: agent_state("tui", env) == "needs sign-in" and agent_state("tree", env) == "connected",
            30,
            "the agents",
        )
        # the "Sign in in a terminal" button: a real xterm runs `acp-tray login tui tui --pause`,
        # which signs in and then waits for Enter, as a person's window does
        pick(dmenu, "#Sign in in a terminal (tui: Sign in to tui)")
        xterms += until(lambda: [p for p in first.children() if comm(p) == "xterm"], 20, "the xterm")
        until(lambda: agent_state("tui", env) == "connected", 30, "the sign-in in the xterm")
        in_window = children_of(xterms[0])  # `acp-tray login`, waiting for Enter
        assert in_window and all(alive(p) for p in in_window)
        until(lambda: len(living(pids)) == 2, what="the v1 fallback's first tree to go")
        tree = sorted(living(pids))

        killed(first)
        second = DaemonProcess("run", "--config", str(config), env=env)
        daemons.append(second)
        second.wait_for_stderr(REAPED)
        until(lambda: not set(tree) & set(living(pids)), what="the killed daemon's agents to be ended")
        until(lambda: agent_state("tree", env) == "connected", 30, "the new daemon's agent")
        assert alive(xterms[0]), "the person's terminal window was ended with the agents"
        assert all(alive(p) for p in in_window), "what runs in the terminal window was ended with the agents"
        assert second.stop() == 0
    finally:
        for pid in xterms:
            with contextlib.suppress(ProcessLookupError):  # ended by the test's failure, if it failed
                os.kill(pid, signal.SIGKILL)
        kill_left(pids)


def test_an_agent_configured_with_the_mark_still_carries_the_real_one_and_is_ended(
    tmp_path: Path, daemons: list[DaemonProcess]
) -> None:
    pids = tmp_path / "pids"
    pids.mkdir()
    config = tmp_path / "config.toml"
    command = json.dumps([sys.executable, str(TREE_AGENT), "wrap"])
    config.write_text(
        f'notifier = "console"\n[agents.sly]\ncommand = {command}\nprotocol = 1\n'
        f'env = {{ TREE_AGENT_PIDS = {json.dumps(str(pids))}, ACP_TRAY_RUN = "x" }}\n',
        encoding="utf-8",
    )
    try:
        first = DaemonProcess("run", "--headless", "--config", str(config))
        daemons.append(first)
        first.wait_for_line("sly  connected")
        mark = paths.agents_run_file().read_text().strip()
        tree = sorted(living(pids))
        assert len(tree) == 2 and mark != "x"
        assert [environ(p).get("ACP_TRAY_RUN") for p in tree] == [mark, mark]  # set last: the real one

        killed(first)
        second = DaemonProcess("run", "--headless", "--config", str(config))
        daemons.append(second)
        second.wait_for_stderr(f"ended 2 {REAPED}")
        until(lambda: not set(tree) & set(living(pids)), what="the killed daemon's agent to be ended")
        second.wait_for_line("sly  connected")
        assert second.stop() == 0
    finally:
        kill_left(pids)


@pytest.mark.parametrize("kind", ["fifo", "directory"])
def test_an_agents_run_file_that_is_not_a_file_neither_hangs_nor_crashes_the_start(
    kind: str, tmp_path: Path, daemons: list[DaemonProcess]
) -> None:
    run_file = paths.agents_run_file()
    run_file.parent.mkdir(parents=True, exist_ok=True)
    if kind == "fifo":
        os.mkfifo(run_file, 0o600)
    else:
        run_file.mkdir()
    daemon = DaemonProcess("run", "--headless", env=cli_env(ACP_TRAY_DEMO_INTERVAL="0.05"))
    daemons.append(daemon)
    daemon.wait_for_line("demo  connected", timeout=20)
    what = "a named pipe" if kind == "fifo" else "a directory"
    daemon.wait_for_stderr(f"{run_file} cannot be read (it is {what}, not a file)")
    assert daemon.stop() == 0
    stderr = daemon.stderr_text()
    assert "Traceback" not in stderr, stderr
    if kind == "directory":
        assert run_file.is_dir()  # someone's directory: warned about, left as it was
        assert "cannot keep this run's mark" in stderr
