"""Shared test fixtures: isolated XDG dirs, the ACP schemas, and helpers to run agents."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import signal
import sys
import threading
from collections.abc import Callable, Iterator
from functools import cache
from pathlib import Path
from typing import Any

import jsonschema
import pytest

import tests.real_agents  # noqa: F401  where the real agents are, read before a test's own XDG directories

ROOT = Path(__file__).resolve().parent.parent
SCHEMA_DIR = ROOT / "tests" / "fixtures" / "acp-schema"
SHARED_SCHEMA_DIR = ROOT.parent / "shared" / "acp-schema"
SCRIPTED_AGENT = ROOT / "tests" / "agents" / "scripted_agent.py"
TS_AGENT = ROOT / "tests" / "interop" / "notice_agent.mjs"


@cache
def schema(version: str, unstable: bool = True) -> dict[str, Any]:
    name = "schema.unstable.json" if unstable else "schema.json"
    return json.loads((SCHEMA_DIR / version / name).read_text(encoding="utf-8"))


def validator_for(version: str, ref: str, unstable: bool = True) -> jsonschema.protocols.Validator:
    document = schema(version, unstable)
    return jsonschema.Draft202012Validator({"$defs": document["$defs"], "$ref": f"#/$defs/{ref}"})


@pytest.fixture(scope="session")
def desktop() -> Iterator[Any]:
    """A real Xvfb + private D-Bus session bus + dunst, shared by the tests that need one."""
    from tests.desktop.session import DesktopSession, missing_tools

    missing = missing_tools()
    if missing:
        pytest.fail(f"install the Debian packages {' '.join(missing)} (make test does, as root)")
    with DesktopSession() as session:
        yield session


@pytest.fixture
def desktop_env(desktop: Any, monkeypatch: pytest.MonkeyPatch) -> dict[str, str]:
    """The desktop session's variables, set in this process too (for in-process backends)."""
    for key, value in desktop.env.items():
        monkeypatch.setenv(key, value)
    desktop.close_all()
    return dict(desktop.env)


@pytest.fixture(params=["dbus-fast", "gio"])
def bus_link(request: pytest.FixtureRequest) -> Iterator[Any]:
    """How the freedesktop backend reaches the bus: dbus-fast, or GLib's D-Bus with a GLib main loop
    running on another thread, as the GTK tray's (a connection of its own here: the process's
    shared session bus connection would end this process when a test's bus goes away)."""
    from acp_tray.notifiers.freedesktop import dbus_fast_link, gio_link

    if request.param == "dbus-fast":
        yield dbus_fast_link
        return
    pytest.importorskip("gi", reason="PyGObject (make test installs it)")
    from gi.repository import GLib

    loop = GLib.MainLoop()
    thread = threading.Thread(target=loop.run, name="glib loop", daemon=True)
    thread.start()
    try:
        yield lambda address: gio_link(address or os.environ["DBUS_SESSION_BUS_ADDRESS"])
    finally:
        loop.quit()
        thread.join(5)


@pytest.fixture(autouse=True)
def isolated_dirs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """Every test gets its own XDG config/state/runtime dirs: real files, never the user's."""
    for name in ("XDG_CONFIG_HOME", "XDG_STATE_HOME", "XDG_CACHE_HOME", "XDG_DATA_HOME", "XDG_RUNTIME_DIR"):
        path = tmp_path / name.lower()
        path.mkdir(mode=0o700)
        monkeypatch.setenv(name, str(path))
    yield tmp_path


def make_presentation(group: int = 1, title: str = "T", severity: str = "info", **fields: Any) -> Any:
    """A presentation as the router would make it, for tests of the surfaces."""
    from datetime import datetime

    from acp_tray.presentation.router import Presentation
    from acp_tray.protocol.notice import severity_kind

    values: dict[str, Any] = {
        "group": group,
        "agent": "bot",
        "session_id": "s",
        "severity": severity,
        "kind": severity_kind(severity),
        "title": title,
        "description": None,
        "count": 1,
        "timeout": 5,
        "notify": True,
        "tray": True,
        "time": datetime(2026, 11, 29, 12, 0),
    }
    values.update(fields)
    return Presentation(**values)


def scripted_command() -> list[str]:
    return [sys.executable, str(SCRIPTED_AGENT)]


def cli_env(**extra: str) -> dict[str, str]:
    """The environment for running `python -m acp_tray` as a subprocess in a test."""
    env = dict(os.environ)
    env.update(extra)
    env["PYTHONUNBUFFERED"] = "1"
    return env


class EventLog:
    """A sink that records events and lets a test wait for a condition on them."""

    def __init__(self) -> None:
        self.events: list[Any] = []
        self._changed = asyncio.Event()

    def __call__(self, event: Any) -> None:
        self.events.append(event)
        self._changed.set()

    def of(self, kind: type) -> list[Any]:
        return [e for e in self.events if isinstance(e, kind)]

    async def wait_for(self, predicate: Callable[[], bool], timeout: float = 30.0) -> None:
        async def loop() -> None:
            while not predicate():
                self._changed.clear()
                await self._changed.wait()

        await asyncio.wait_for(loop(), timeout)


class FakeClock:
    """A clock for pure policy tests: local wall time (aware) and monotonic seconds move together."""

    def __init__(self, start: Any) -> None:
        self._now = start
        self._mono = 1000.0

    def now(self) -> Any:
        return self._now

    def monotonic(self) -> float:
        return self._mono

    def advance(self, seconds: float) -> None:
        from datetime import UTC, timedelta

        self._now = (self._now.astimezone(UTC) + timedelta(seconds=seconds)).astimezone(self._now.tzinfo)
        self._mono += seconds


@pytest.fixture
def daemons() -> Iterator[list[Any]]:
    """Daemons (`tests.daemon_process.Daemon`) a test starts: killed at the end if still running,
    with their agents' process groups (each agent has its own: a killed daemon cannot end them,
    and an agent that ignores the end of its input, such as npx's codex-acp, would live on)."""
    started: list[Any] = []
    yield started
    for daemon in started:
        if daemon.proc.poll() is None:
            groups = set()
            for child in daemon.children():
                with contextlib.suppress(ProcessLookupError):
                    groups.add(os.getpgid(child))
            daemon.proc.kill()
            daemon.proc.wait()
            for group in groups - {os.getpgrp(), daemon.proc.pid}:
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(group, signal.SIGKILL)


@pytest.fixture
def no_proxies(monkeypatch: pytest.MonkeyPatch) -> None:
    """websockets honours *_proxy variables (the SDK cannot turn that off); tests of remote agents
    talk to 127.0.0.1."""
    for name in list(os.environ):
        if name.lower().endswith("_proxy"):
            monkeypatch.delenv(name)
