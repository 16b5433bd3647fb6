"""A real desktop session for tests and benchmarks: Xvfb, a private D-Bus session bus, dunst.

    with DesktopSession() as desktop:
        desktop.env  # DISPLAY and DBUS_SESSION_BUS_ADDRESS for subprocesses
        desktop.history()  # dunstctl history, parsed

Everything is started here and torn down by PID. Needs the Debian packages xvfb, dbus, dunst
and libnotify-bin (`.ci/run` installs them).
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
REQUIRED = {
    "Xvfb": "xvfb",
    "dbus-daemon": "dbus",
    "dunst": "dunst",
    "dunstctl": "dunst",
    "notify-send": "libnotify-bin",
}


def start_session_bus(processes: list[subprocess.Popen[bytes]]) -> str:
    """A private D-Bus session bus (added to `processes`); its address."""
    bus = subprocess.Popen(
        ["dbus-daemon", "--nofork", "--print-address=1", f"--config-file={HERE / 'session-bus.conf'}"],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
    )
    processes.append(bus)
    assert bus.stdout is not None
    address = bus.stdout.readline().decode().strip()
    if not address:
        raise RuntimeError("dbus-daemon did not start")
    return address


def stop_processes(processes: list[subprocess.Popen[bytes]]) -> None:
    """Terminate (then kill) what was started, newest first, by PID."""
    for process in reversed(processes):
        if process.poll() is None:
            process.terminate()
            try:
                process.wait(5)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
    processes.clear()


def missing_tools() -> list[str]:
    return sorted({package for tool, package in REQUIRED.items() if shutil.which(tool) is None})


class DesktopSession:
    def __init__(self, dunstrc: Path | None = None) -> None:
        self.dunstrc = dunstrc or HERE / "dunstrc"
        self.processes: list[subprocess.Popen[bytes]] = []
        self.env: dict[str, str] = {}

    def __enter__(self) -> DesktopSession:
        missing = missing_tools()
        if missing:
            raise RuntimeError(f"a real desktop session needs these Debian packages: {' '.join(missing)}")
        try:
            self._start()
        except BaseException:
            self.stop()
            raise
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def _start(self) -> None:
        read_fd, write_fd = os.pipe()
        xvfb = subprocess.Popen(
            ["Xvfb", "-displayfd", str(write_fd), "-screen", "0", "1280x800x24", "-nolisten", "tcp"],
            pass_fds=(write_fd,),
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        self.processes.append(xvfb)
        os.close(write_fd)
        with os.fdopen(read_fd) as pipe:
            display = pipe.readline().strip()
        if not display:
            raise RuntimeError("Xvfb did not start")
        address = start_session_bus(self.processes)
        self.env = {"DISPLAY": f":{display}", "DBUS_SESSION_BUS_ADDRESS": address}
        self.start_dunst()

    def start_dunst(self) -> None:
        dunst = subprocess.Popen(
            ["dunst", "-config", str(self.dunstrc)],
            env={**os.environ, **self.env},
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        self.processes.append(dunst)
        self.dunst = dunst
        deadline = time.monotonic() + 15
        while time.monotonic() < deadline:
            if self._dunstctl("is-paused").returncode == 0:
                return
            time.sleep(0.05)
        raise RuntimeError("dunst did not come up on the test bus")

    def kill_dunst(self) -> None:
        self.dunst.send_signal(signal.SIGKILL)
        self.dunst.wait()

    def _dunstctl(self, *args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            ["dunstctl", *args], env={**os.environ, **self.env}, capture_output=True, text=True, timeout=10
        )

    def history(self) -> list[dict[str, Any]]:
        """Notifications dunst has closed (call `close_all` first to include those on screen), oldest first."""
        displayed = self._dunstctl("history")
        data = json.loads(displayed.stdout)["data"][0]
        items = [{key: value["data"] for key, value in entry.items()} for entry in data]
        return sorted(items, key=lambda item: item["id"])

    def mark(self) -> int:
        """The newest notification id so far: pass it to `since` to see only what came after."""
        self.close_all()
        time.sleep(0.1)
        return max((item["id"] for item in self.history()), default=0)

    def since(self, mark: int) -> list[dict[str, Any]]:
        """Everything shown after `mark` (closing what is on screen first), oldest first."""
        self.close_all()
        time.sleep(0.1)
        return [item for item in self.history() if item["id"] > mark]

    def close_all(self) -> None:
        self._dunstctl("close-all")

    def stop(self) -> None:
        stop_processes(self.processes)
