"""`acp-tray` as a person runs it, for tests: the daemon as a subprocess read line by line, one
`acp-tray ...` command, and the processes they leave."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterable, Iterator
from pathlib import Path
from queue import Empty, Queue

import pytest

from tests.support.repo import ROOT


def cli_env(**extra: str) -> dict[str, str]:
    """The environment for running `python -m acp_tray` as a subprocess in a test."""
    env = dict(os.environ)
    env.update(extra)
    env["PYTHONUNBUFFERED"] = "1"
    return env


class DaemonProcess:
    """`python -m acp_tray ...` (or `program ...`) as a subprocess, its stdout read line by line."""

    def __init__(
        self,
        *args: str,
        env: dict[str, str] | None = None,
        own_group: bool = False,
        program: list[str] | None = None,
    ) -> None:
        self.proc = subprocess.Popen(
            [*(program or [sys.executable, "-m", "acp_tray"]), *args],
            stdin=subprocess.DEVNULL,
            start_new_session=own_group,  # its agents too: one process group to kill
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=env or cli_env(ACP_TRAY_DEMO_INTERVAL="0.05"),
            cwd=ROOT,
        )
        self.lines: Queue[str] = Queue()
        self.seen: list[str] = []
        self.err_lines: list[str] = []
        threading.Thread(target=self._pump, daemon=True).start()
        self._err_pump = threading.Thread(target=self._pump_stderr, daemon=True)
        self._err_pump.start()

    def _pump(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self.lines.put(line.rstrip("\n"))

    def _pump_stderr(self) -> None:
        assert self.proc.stderr is not None
        for line in self.proc.stderr:
            self.err_lines.append(line.rstrip("\n"))

    def wait_for_stderr(self, needle: str, occurrences: int = 1, timeout: float = 30.0) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if sum(needle in line for line in list(self.err_lines)) >= occurrences:
                return
            if self.proc.poll() is not None:
                break
            time.sleep(0.05)
        raise AssertionError(f"stderr never said {needle!r} {occurrences} time(s): {self.err_lines!r}")

    def wait_for_lines(self, *needles: str, timeout: float = 30.0) -> None:
        """Every needle in some line, in any order (lines already seen count)."""
        for needle in needles:
            if not any(needle in line for line in self.seen):
                self.wait_for_line(needle, timeout)

    def wait_for_line(self, needle: str, timeout: float = 30.0) -> str:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            try:
                line = self.lines.get(timeout=0.2)
            except Empty:
                if self.proc.poll() is not None:
                    break
                continue
            self.seen.append(line)
            if needle in line:
                return line
        raise AssertionError(f"no line with {needle!r}; saw {self.seen!r}; stderr {self.stderr_text()!r}")

    def stderr_text(self) -> str:
        if self.proc.poll() is None:
            return "(still running)"
        self._err_pump.join(timeout=5)
        return "\n".join(self.err_lines)

    def children(self) -> list[int]:
        """Its child processes, started from any of its threads (with a tray, agents are started
        from the asyncio thread, not the main one)."""
        found = []
        for task in Path(f"/proc/{self.proc.pid}/task").iterdir():
            with contextlib.suppress(OSError):  # a thread that ended meanwhile
                found += [int(pid) for pid in (task / "children").read_text().split()]
        return found

    def stop(self, sig: int = signal.SIGINT, timeout: float = 15.0) -> int:
        self.proc.send_signal(sig)
        return self.proc.wait(timeout)


def alive(pid: int) -> bool:
    """Whether `pid` is a live process (not gone, not a zombie)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]  # a name may hold spaces
    except (FileNotFoundError, ProcessLookupError):
        return False
    return state != "Z"


def carrying(pids: Iterable[int], variable: str) -> list[int]:
    """The live processes among `pids` whose environment holds `variable` ("NAME=value"): children
    inherit it, so it finds an agent's whole tree, also a process that left it (parent 1)."""
    needle = variable.encode()
    found = []
    for pid in pids:
        try:
            environ = Path(f"/proc/{pid}/environ").read_bytes().split(b"\0")
        except OSError:  # gone, or another user's
            continue
        if needle in environ and alive(pid):
            found.append(pid)
    return found


def cli(*args: str, env: dict[str, str] | None = None, timeout: float = 60.0) -> subprocess.CompletedProcess[str]:
    """One `acp-tray ARGS...` command, run to its end."""
    return subprocess.run(
        [sys.executable, "-m", "acp_tray", *args],
        capture_output=True,
        text=True,
        env=env or cli_env(),
        cwd=ROOT,
        timeout=timeout,
    )


def cli_started(*args: str) -> subprocess.Popen[str]:
    """One `acp-tray ARGS...` command started and left running (stdout and stderr piped), e.g. a waiting prompt."""
    return subprocess.Popen(
        [sys.executable, "-m", "acp_tray", *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=cli_env(),
    )


def start(
    daemons: list[DaemonProcess],
    *connected: str,
    verbose: bool = False,
    own_group: bool = False,
    env: dict[str, str] | None = None,
) -> DaemonProcess:
    """`acp-tray run --headless` (`-v` when `verbose`; `env`: more variables), kept in `daemons` (the
    fixture ends it), once its control socket is up and the agents named `connected` have connected.
    `own_group`: in a process group of its own, with its agents (the `whole_groups` fixture ends it)."""
    daemon = DaemonProcess(
        "run",
        "--headless",
        *(["-v"] if verbose else []),
        env=cli_env(ACP_TRAY_DEMO_INTERVAL="0.05", **(env or {})),
        own_group=own_group,
    )
    daemons.append(daemon)
    daemon.wait_for_line("control: ")
    daemon.wait_for_lines(*(f"  {name}  connected" for name in connected))
    return daemon


def agent_state(name: str, env: dict[str, str] | None = None) -> str:
    """Agent `name`'s state as `acp-tray agents list --json` says it ("" while the daemon is not up)."""
    listed = cli("agents", "list", "--json", env=env)
    if listed.returncode != 0:
        return ""
    return str(next(r for r in json.loads(listed.stdout) if r["name"] == name)["state"])


@pytest.fixture
def whole_groups(daemons: list[DaemonProcess]) -> Iterator[None]:
    """Each daemon's process group ended whole after the test (for daemons started with
    `own_group`): an npx agent's own children (npm exec → node → the agent's binary) outlive the npx
    process acp-tray stops."""
    yield
    for daemon in daemons:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(daemon.proc.pid, signal.SIGKILL)


def rss_kib(pid: int) -> int:
    """A process's resident memory now (VmRSS), in KiB."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    raise AssertionError(f"no VmRSS for {pid}")
