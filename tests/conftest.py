"""The fixtures every test can use: isolated XDG dirs, the test desktop, the daemons a test starts.

Helpers live in tests/support; its modules that hold fixtures are registered below."""

from __future__ import annotations

import contextlib
import os
import signal
import sys
import threading
from collections.abc import Generator, Iterator
from pathlib import Path
from typing import Any

import pytest

import tests.real_agents  # noqa: F401  where the real agents are, read before a test's own XDG directories

pytest_plugins = [  # fixtures shared by test modules of several folders
    "tests.support.browser",  # chromium, browser, page_for, screenshot
    "tests.desktop.keyring",  # keyring_env
    "tests.support.daemons",  # whole_groups
    "tests.support.dunst_menu",  # dmenu
    "tests.support.interop_node",  # node
    "tests.support.other_user",  # other_user, shared_runtime, procs
    "tests.support.registry_server",  # server
    "tests.support.trays",  # tray_host
]

RECORDER = Path(__file__).resolve().parent / "tools" / "browser_recorder.py"


@pytest.hookimpl(tryfirst=True, optionalhook=True)  # a hook of pytest-xdist's, when it is there
def pytest_xdist_make_scheduler(config: pytest.Config, log: Any) -> Any:
    """`--dist loadgroup` (make test): xdist's, with the modules tests/support/parallel.py names kept together."""
    if config.getoption("dist") != "loadgroup":
        return None
    from tests.support.parallel import GroupedScheduling

    return GroupedScheduling(config, log)


@pytest.hookimpl(wrapper=True)
def pytest_report_to_serializable(
    report: pytest.TestReport | pytest.CollectReport,
) -> Generator[None, dict[str, Any] | None, dict[str, Any] | None]:
    """A worker's report as xdist sends it, its lone surrogates (from a hostile agent's text, in
    captured logs) escaped: execnet cannot send them, and the whole run would end in an internal error."""
    data = yield
    from tests.support.parallel import transportable

    sendable: dict[str, Any] | None = transportable(data)
    return sendable


@pytest.fixture(scope="session")
def desktop() -> Iterator[Any]:
    """A real Xvfb + private D-Bus session bus + dunst, shared by the tests that need one (in a
    parallel run, one per worker: Xvfb takes a free display, the bus and dunst are its own)."""
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
    """Every test gets its own XDG config/state/runtime dirs: real files, never the user's. The
    runtime dir's name is short: the control socket's path must fit a Unix socket's 100 bytes
    also under a parallel run's worker folder (/tmp/pytest-of-root/pytest-N/popen-gw0/TEST0/...)."""
    names = {"XDG_RUNTIME_DIR": "run"}
    for name in ("XDG_CONFIG_HOME", "XDG_STATE_HOME", "XDG_CACHE_HOME", "XDG_DATA_HOME", "XDG_RUNTIME_DIR"):
        path = tmp_path / names.get(name, name.lower())
        path.mkdir(mode=0o700)
        monkeypatch.setenv(name, str(path))
    # no test opens a real browser: what acp-tray asks a browser to open is written down instead
    monkeypatch.setenv("BROWSER", f"{sys.executable} {RECORDER} %s")
    monkeypatch.setenv("ACP_TRAY_TEST_OPENED", str(tmp_path / "opened-in-browser.txt"))
    # a daemon's first start on a desktop opens the welcome page: only the tests of it want that
    monkeypatch.setenv("ACP_TRAY_NO_WELCOME", "1")
    monkeypatch.setenv("ACP_TRAY_WINDOW_IN", "browser")  # the app window's own tests unset it
    yield tmp_path


@pytest.fixture
def daemons() -> Iterator[list[Any]]:
    """Daemons (`tests.support.daemons.DaemonProcess`) a test starts: killed at the end if still running,
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
