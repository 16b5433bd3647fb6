"""`acp-tray` as a person runs it, for tests: the daemon as a subprocess, read line by line."""

from __future__ import annotations

import contextlib
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterable
from pathlib import Path
from queue import Empty, Queue
from typing import Any

from tests.conftest import ROOT, cli_env


class Daemon:
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


def until(condition: Callable[[], Any], timeout: float = 20.0, what: str = "condition") -> Any:
    """Poll `condition` until it gives something true (returned), or fail after `timeout` seconds."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = condition()
        if value:
            return value
        time.sleep(0.05)
    raise AssertionError(f"timed out after {timeout:g} s waiting for {what}")


def cli_started(*args: str) -> subprocess.Popen[str]:
    """One `acp-tray ARGS...` command started and left running (stdout and stderr piped), e.g. a waiting prompt."""
    return subprocess.Popen(
        [sys.executable, "-m", "acp_tray", *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=cli_env(),
    )


def write_agent_config(name: str, command: list[str], cwd: Path, env: dict[str, str], extra: str = "") -> Path:
    """The preferences file with one agent `name` (its command, cwd and env; `extra` TOML lines for it)."""
    import json

    from acp_tray.files import paths

    inline = ", ".join(f"{k} = {json.dumps(v)}" for k, v in env.items())  # JSON strings are TOML strings
    config = paths.config_file()
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text(
        f"[agents.{name}]\ncommand = {json.dumps(command)}\ncwd = {json.dumps(str(cwd))}\n"
        f"{extra}env = {{ {inline} }}\n",
        encoding="utf-8",
    )
    return config
