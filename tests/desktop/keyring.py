"""A real Secret Service for tests: GNOME Keyring on a private D-Bus session bus, headless, with a
test keyring unlocked by a known password. Files in `home` only; torn down by PID.

    with SecretService(tmp_path / "keyring-home") as service:
        service.env  # DBUS_SESSION_BUS_ADDRESS, XDG_DATA_HOME, PYTHON_KEYRING_BACKEND for subprocesses

Needs the Debian packages dbus and gnome-keyring (`.ci/system-deps` installs them).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
PASSWORD = b"acp-tray-tests"


def missing() -> list[str]:
    tools = {"dbus-daemon": "dbus", "gnome-keyring-daemon": "gnome-keyring", "dbus-send": "dbus"}
    return sorted({package for tool, package in tools.items() if shutil.which(tool) is None})


class SecretService:
    def __init__(self, home: Path, bus: str | None = None) -> None:
        self.home = home
        self.bus = bus  # an existing session bus (a DesktopSession's) instead of a private one
        self.processes: list[subprocess.Popen[bytes]] = []
        self.env: dict[str, str] = {}

    def __enter__(self) -> SecretService:
        try:
            self._start()
        except BaseException:
            self.stop()
            raise
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def _start(self) -> None:
        address = self.bus or self._start_bus()
        runtime = self.home / "runtime"
        runtime.mkdir(parents=True, mode=0o700, exist_ok=True)
        self.env = {
            "DBUS_SESSION_BUS_ADDRESS": address,
            "XDG_DATA_HOME": str(self.home / "data"),  # where the keyring file goes
            "PYTHON_KEYRING_BACKEND": "keyring.backends.SecretService.Keyring",  # this one, not another
        }
        daemon = subprocess.Popen(
            ["gnome-keyring-daemon", "--foreground", "--unlock", "--components=secrets"],
            stdin=subprocess.PIPE,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            env={**os.environ, **self.env, "HOME": str(self.home), "XDG_RUNTIME_DIR": str(runtime)},
        )
        self.processes.append(daemon)
        assert daemon.stdin is not None
        daemon.stdin.write(PASSWORD)
        daemon.stdin.close()
        deadline = time.monotonic() + 15
        while time.monotonic() < deadline:
            if self._owned("org.freedesktop.secrets"):
                return
            if daemon.poll() is not None:
                raise RuntimeError(f"gnome-keyring-daemon exited with {daemon.returncode}")
            time.sleep(0.05)
        raise RuntimeError("gnome-keyring-daemon did not take org.freedesktop.secrets on the test bus")

    def _start_bus(self) -> str:
        bus = subprocess.Popen(
            ["dbus-daemon", "--nofork", "--print-address=1", f"--config-file={HERE / 'session-bus.conf'}"],
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
        )
        self.processes.append(bus)
        assert bus.stdout is not None
        address = bus.stdout.readline().decode().strip()
        if not address:
            raise RuntimeError("dbus-daemon did not start")
        return address

    def _owned(self, name: str) -> bool:
        reply = subprocess.run(
            ["dbus-send", "--print-reply", "--dest=org.freedesktop.DBus", "/org/freedesktop/DBus",
             "org.freedesktop.DBus.NameHasOwner", f"string:{name}"],
            env={**os.environ, **self.env}, capture_output=True, text=True, timeout=10,
        )  # fmt: skip
        return "boolean true" in reply.stdout

    def stop(self) -> None:
        for process in reversed(self.processes):
            if process.poll() is None:
                process.terminate()
                try:
                    process.wait(5)
                except subprocess.TimeoutExpired:
                    process.kill()
                    process.wait()
