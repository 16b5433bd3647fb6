"""A real Secret Service for tests: GNOME Keyring on a D-Bus session bus (a private one, or a
desktop session's), headless, with a test keyring unlocked by a known password. Its files stay
in `home`; everything is torn down by PID.

    with secret_service(tmp_path / "keyring") as env:
        env  # DBUS_SESSION_BUS_ADDRESS, XDG_DATA_HOME, PYTHON_KEYRING_BACKEND for subprocesses

Needs the Debian packages dbus and gnome-keyring (`.ci/system-deps` installs them).
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from tests.desktop.session import start_session_bus, stop_processes

PASSWORD = b"acp-tray-tests"


def missing() -> list[str]:
    tools = {"dbus-daemon": "dbus", "dbus-send": "dbus", "gnome-keyring-daemon": "gnome-keyring"}
    return sorted({package for tool, package in tools.items() if shutil.which(tool) is None})


@pytest.fixture
def keyring_env(tmp_path: Path) -> Iterator[dict[str, str]]:
    if missing():
        pytest.fail(f"install the Debian packages {' '.join(missing())} (make test does, as root)")
    with secret_service(tmp_path / "keyring") as env:
        yield env


def _owned(name: str, env: dict[str, str]) -> bool:
    reply = subprocess.run(
        ["dbus-send", "--print-reply", "--dest=org.freedesktop.DBus", "/org/freedesktop/DBus",
         "org.freedesktop.DBus.NameHasOwner", f"string:{name}"],
        env={**os.environ, **env}, capture_output=True, text=True, timeout=10,
    )  # fmt: skip
    return "boolean true" in reply.stdout


def _owner_pid(name: str, env: dict[str, str]) -> int:
    reply = subprocess.run(
        ["dbus-send", "--print-reply", "--dest=org.freedesktop.DBus", "/org/freedesktop/DBus",
         "org.freedesktop.DBus.GetConnectionUnixProcessID", f"string:{name}"],
        env={**os.environ, **env}, capture_output=True, text=True, timeout=10, check=True,
    )  # fmt: skip
    return int(reply.stdout.split()[-1])


@contextmanager
def keyring_held(env: dict[str, str]) -> Iterator[None]:
    """The Secret Service of `env` stopped (SIGSTOP, by the PID the bus names for it) until the block
    ends: every call to it waits, as it does while the keyring's password dialog is open."""
    pid = _owner_pid("org.freedesktop.secrets", env)
    os.kill(pid, signal.SIGSTOP)
    try:
        yield
    finally:
        os.kill(pid, signal.SIGCONT)


@contextmanager
def secret_service(home: Path, bus: str | None = None) -> Iterator[dict[str, str]]:
    """GNOME Keyring's Secret Service on `bus` (default: a private session bus); yields the env."""
    processes: list[subprocess.Popen[bytes]] = []
    try:
        runtime = home / "runtime"
        runtime.mkdir(parents=True, mode=0o700, exist_ok=True)
        env = {
            "DBUS_SESSION_BUS_ADDRESS": bus or start_session_bus(processes),
            "XDG_DATA_HOME": str(home / "data"),  # where the keyring file goes
            "PYTHON_KEYRING_BACKEND": "keyring.backends.SecretService.Keyring",  # this one, not another
        }
        daemon = subprocess.Popen(
            ["gnome-keyring-daemon", "--foreground", "--unlock", "--components=secrets"],
            stdin=subprocess.PIPE,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            env={**os.environ, **env, "HOME": str(home), "XDG_RUNTIME_DIR": str(runtime)},
        )
        processes.append(daemon)
        assert daemon.stdin is not None
        daemon.stdin.write(PASSWORD)
        daemon.stdin.close()
        deadline = time.monotonic() + 15
        while not _owned("org.freedesktop.secrets", env):
            if daemon.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError("gnome-keyring-daemon did not take org.freedesktop.secrets on the test bus")
            time.sleep(0.05)
        yield env
    finally:
        stop_processes(processes)
