"""Run acp-tray on the Windows CPython that `.ci/windows-lane` set up under Wine, from this machine.

The lane exports ACP_TRAY_WINE_PYTHON (python.exe), ACP_TRAY_WINE_PYTHONPATH (Windows paths to the
source and the win_amd64 dependencies), WINEPREFIX and DISPLAY; without them these tests are skipped.
Output always goes through a pipe (Wine 8.0 aborts Python whose std handle is a regular Linux file),
and is decoded as strict UTF-8 (acp-tray writes UTF-8 on Windows, also into a pipe).
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import IO

import pytest

from acp_tray.prefs.template import DEFAULT_FILE

PYTHON = os.environ.get("ACP_TRAY_WINE_PYTHON", "")
ARTIFACTS = Path(os.environ.get("ACP_TRAY_WINE_ARTIFACTS", "/tmp/acp-tray-windows-lane"))

lane_only = pytest.mark.skipif(not PYTHON, reason="the Windows lane (.ci/windows-lane) runs these under Wine")


def environment() -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.environ.get("ACP_TRAY_WINE_PYTHONPATH", "")
    if "ACP_TRAY_WINE_PYCACHE" in os.environ:
        env["PYTHONPYCACHEPREFIX"] = os.environ["ACP_TRAY_WINE_PYCACHE"]
    env.update(WINEDEBUG="-all", LC_ALL="C.UTF-8")
    return env


@dataclass
class Finished:
    code: int | None  # None: it did not end within the time given (and was killed)
    output: str  # stdout and stderr, UTF-8 (strict: acp-tray writes UTF-8 on Windows)
    threads: str = ""  # for one that did not end: its threads' kernel wait channels (Linux /proc)


def _wait_channels(pid: int) -> str:
    lines = []
    for task in sorted(Path(f"/proc/{pid}/task").glob("*")):
        with contextlib.suppress(OSError):
            lines.append(f"{task.name} {(task / 'comm').read_text().strip()} {(task / 'wchan').read_text().strip()}")
    return "; ".join(lines)


def _collect(stream: IO[bytes], into: bytearray) -> None:
    for chunk in iter(lambda: os.read(stream.fileno(), 65536), b""):
        into.extend(chunk)


def run_finished(*args: str, timeout: float = 90) -> Finished:
    """python.exe ARGS in a Windows process of its own, waited for as a process: the end of its
    output is not waited for (a Wine service it happened to start may hold the pipe for ever). One
    that hangs prints its Python threads' stacks half way (the lane's sitecustomize)."""
    env = {**environment(), "ACP_TRAY_WINE_DUMP": str(timeout / 2)}
    process = subprocess.Popen(
        ["wine", PYTHON, *args], stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, env=env
    )
    assert process.stdout is not None
    output = bytearray()
    reader = threading.Thread(target=_collect, args=(process.stdout, output), daemon=True)
    reader.start()
    try:
        code: int | None = process.wait(timeout)
        threads = ""
    except subprocess.TimeoutExpired:
        code, threads = None, _wait_channels(process.pid)
        process.kill()
        process.wait()
    reader.join(2)
    return Finished(code, bytes(output).decode("utf-8").replace("\r\n", "\n"), threads)


def run(*args: str, timeout: float = 90) -> tuple[int, str]:
    """python.exe ARGS: (exit status, output). Not ending in time fails the test, with the stacks."""
    done = run_finished(*args, timeout=timeout)
    if done.code is None:
        command = " ".join(args)
        raise AssertionError(f"python.exe {command}: no end within {timeout:.0f} s:\n{done.output}{done.threads}")
    return done.code, done.output


def acp(*args: str, timeout: float = 90) -> str:
    """`acp-tray ARGS` in a Windows process of its own: its output."""
    return run("-m", "acp_tray", *args, timeout=timeout)[1]


def windows_path(path: Path) -> str:
    return "Z:" + str(path).replace("/", "\\")


def user_dir() -> Path:
    """The Wine user's home in the prefix (C:\\users\\NAME)."""
    users = Path(os.environ["WINEPREFIX"]) / "drive_c" / "users"
    return next(p for p in users.iterdir() if p.name not in ("Public", "public"))


def lock_files() -> list[Path]:
    return list(user_dir().rglob("daemon.lock"))


class WineProcess:
    """A Windows process started through Wine with its output collected line by line."""

    def __init__(self, argv: list[str], name: str) -> None:
        self.log_path = ARTIFACTS / f"{name}.log"
        self.lines: list[str] = []
        self.process = subprocess.Popen(
            argv,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            env=environment(),
            start_new_session=True,
        )
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self) -> None:
        assert self.process.stdout is not None
        with self.log_path.open("w", encoding="utf-8") as log:
            for raw in self.process.stdout:
                line = raw.decode("utf-8", "backslashreplace").rstrip("\r\n")
                self.lines.append(line)
                log.write(line + "\n")
                log.flush()

    @property
    def output(self) -> str:
        return "\n".join(self.lines)

    def wait_for(self, predicate: Callable[[], bool], timeout: float, what: str) -> None:
        deadline = time.monotonic() + timeout
        while not predicate():
            if time.monotonic() > deadline:
                raise AssertionError(f"{what}: not within {timeout:.0f} s; output:\n{self.output[-3000:]}")
            if self.process.poll() is not None:
                self._reader.join(5)
                raise AssertionError(f"{what}: the process ended ({self.process.returncode}):\n{self.output[-3000:]}")
            time.sleep(0.2)

    def wait_exit(self, timeout: float) -> int | None:
        try:
            code = self.process.wait(timeout)
        except subprocess.TimeoutExpired:
            return None
        self._reader.join(5)
        return code

    def python_pid(self) -> int:
        """The Unix pid of the python.exe process itself (the wine loader becomes it)."""
        return self.process.pid

    def kill(self) -> None:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self.process.pid, signal.SIGKILL)
        self.wait_exit(10)


@contextlib.contextmanager
def daemon(*args: str, name: str, desktop: bool = False, every_turn: bool = False) -> Iterator[WineProcess]:
    """`acp-tray -v run ARGS`: headless, or with the tray inside a Wine virtual desktop (explorer's
    taskbar holds the notification area). `every_turn`: the default file, but every turn's "Finished"
    pops up (`[turns] notify_after = 0`), as a prompt to the demo takes well under the default."""
    for left in user_dir().glob("AppData/Local/acp-tray/acp-tray/config.toml"):
        left.unlink()  # each on the defaults: a test that failed half way (DND on) does not decide the next
    if every_turn:
        config = user_dir() / "AppData" / "Local" / "acp-tray" / "acp-tray" / "config.toml"
        config.parent.mkdir(parents=True, exist_ok=True)
        config.write_text(DEFAULT_FILE.replace("notify_after = 20", "notify_after = 0"), encoding="utf-8")
    argv = ["wine", PYTHON, "-m", "acp_tray", "-v", "run", *args]
    if desktop:
        argv = ["wine", "explorer", "/desktop=shell,1024x700", windows_path(Path(PYTHON)), *argv[2:]]
    process = WineProcess(argv, name)
    try:
        yield process
    finally:
        if process.process.poll() is None:
            with contextlib.suppress(Exception):
                acp("quit", timeout=30)
            if process.wait_exit(30) is None:
                process.kill()
