"""Closing the terminal acp-tray was started from does not end it: `acp-tray run` typed into a real
shell on a real pseudo-terminal (as `make run` runs it), the terminal closed (its master side, as a
terminal emulator's window closing does); acp-tray still answers `acp-tray status`, its agent and
its window still run, the log says it went on without the terminal, and `acp-tray quit` then ends
them all."""

from __future__ import annotations

import fcntl
import os
import select
import subprocess
import sys
import termios
import time
import uuid
from pathlib import Path
from typing import Any

import pytest

from acp_tray.control.endpoint import LOCK_NAME, runtime_dir
from acp_tray.files import paths
from tests.support.daemons import alive, carrying, cli, cli_env
from tests.support.repo import ROOT
from tests.support.waiting import until
from tests.support.window import DEMO, open_window

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="a pseudo-terminal and /proc")


def _own_terminal() -> None:  # in the shell's process, before it runs: the pty is its controlling terminal
    os.setsid()
    fcntl.ioctl(0, termios.TIOCSCTTY, 0)


def read_until(master: int, needle: str, timeout: float = 60.0) -> str:
    """What the terminal showed, once `needle` is in it."""
    seen = b""
    deadline = time.monotonic() + timeout
    while needle.encode() not in seen:
        left = deadline - time.monotonic()
        assert left > 0, f"the terminal never showed {needle!r}: {seen.decode(errors='replace')}"
        ready, _, _ = select.select([master], [], [], min(left, 1.0))
        if ready:
            seen += os.read(master, 65536)
    return seen.decode(errors="replace")


def everything_ended(pids: list[int]) -> bool:
    return not [pid for pid in pids if alive(pid)]


@pytest.mark.parametrize("where", ["headless", "xorg tray", "gtk tray"])
def test_closing_the_terminal_leaves_acp_tray_its_agent_and_window_running(where: str, request: Any) -> None:
    config = paths.config_file()
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text(DEMO, encoding="utf-8")
    mark = f"ACP_TRAY_TEST_RUN={uuid.uuid4().hex}"  # inherited by all it starts: found in /proc
    env = cli_env(ACP_TRAY_DEMO_INTERVAL="0.05", TERM="dumb", PS1="$ ", **dict([mark.split("=", 1)]))
    if where == "gtk tray":  # GLib, not Python, takes the signals there
        pytest.importorskip("gi", reason="PyGObject (make test installs it)")
        env.update(request.getfixturevalue("desktop").env, NO_AT_BRIDGE="1")
    elif where == "xorg tray":
        env.update(request.getfixturevalue("desktop").env, PYSTRAY_BACKEND="xorg")
    else:
        env.pop("DISPLAY", None)
    command = f"{sys.executable} -m acp_tray run" + (" --headless" if where == "headless" else "") + "\n"
    master, slave = os.openpty()
    shell = subprocess.Popen(
        ["bash", "--norc", "--noprofile", "-i"],
        stdin=slave, stdout=slave, stderr=slave, env=env, cwd=ROOT, preexec_fn=_own_terminal, close_fds=True,
    )  # fmt: skip
    os.close(slave)
    pids: list[int] = []
    try:
        read_until(master, "$ ")
        os.write(master, command.encode())
        shown = read_until(master, "demo  connected")
        assert where != "gtk tray" or "appindicator backend" in shown, shown
        assert "closing this terminal leaves acp-tray running" in shown  # said at start, in one line
        daemon = int((runtime_dir() / LOCK_NAME).read_text().strip())
        agents = [pid for pid in carrying(_all_pids(), mark) if pid not in (daemon, shell.pid)]
        assert agents, "the demo agent's process"
        window = open_window(env=env)
        pids = [daemon, *agents, window.pid]

        os.close(master)  # the terminal closes
        master = -1
        assert shell.wait(30) is not None  # the shell ended with its terminal
        time.sleep(1.0)  # what a hang-up ends, it ends at once
        status = cli("status")
        assert status.returncode == 0 and "demo" in status.stdout, status.stdout + status.stderr
        assert [pid for pid in pids if not alive(pid)] == []  # the daemon, its agent, its window
        log = paths.log_file().read_text(encoding="utf-8")
        assert "the terminal acp-tray was started from closed: acp-tray goes on without it" in log

        stopped = cli("quit")
        assert stopped.returncode == 0, stopped.stderr
        until(lambda: everything_ended(pids), timeout=30, what="acp-tray, its agent and its window to end")
    finally:
        if master >= 0:
            os.close(master)
        if shell.poll() is None:
            shell.kill()
            shell.wait()
        for pid in pids:
            if alive(pid):
                os.kill(pid, 9)


def _all_pids() -> list[int]:
    return [int(p.name) for p in Path("/proc").iterdir() if p.name.isdigit()]
