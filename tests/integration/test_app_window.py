"""The app window: `acp-tray ui` (what the tray's "Open acp-tray…", a notification's "Open" and the
app-menu entry run) shows the window's pages in the system's web view (WebKitGTK), one window per
user: opened three times, it is one window, brought to the front when another covers it or it was
minimised; when the daemon stops and starts again it shows the page again by itself. Under a real
Xvfb with a real window manager (openbox), read with xdotool and xprop. Without a web view, the
window opens in the browser and a notification on dunst says why and what to do."""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from acp_tray.control.endpoint import runtime_dir
from acp_tray.files import paths
from tests.support.daemons import DaemonProcess, cli, cli_env
from tests.support.dunst_menu import pick
from tests.support.waiting import until
from tests.support.window import DEMO, demo_daemon, end

pytestmark = pytest.mark.skipif(shutil.which("openbox") is None, reason="openbox (make test installs it)")
SUFFIX = " · acp-tray"  # every page's title ends so; the app window takes its page's title


@pytest.fixture
def screen() -> Iterator[dict[str, str]]:
    """A display of its own with a window manager: Xvfb and openbox, ended with the test."""
    read_fd, write_fd = os.pipe()
    xvfb = subprocess.Popen(
        ["Xvfb", "-displayfd", str(write_fd), "-screen", "0", "1280x800x24", "-nolisten", "tcp"],
        pass_fds=(write_fd,), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    os.close(write_fd)
    with os.fdopen(read_fd) as pipe:
        env = {"DISPLAY": ":" + pipe.readline().strip()}
    manager = subprocess.Popen(
        ["openbox", "--sm-disable"], env={**os.environ, **env}, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    until(lambda: "window id" in _x(env, "xprop", "-root", "_NET_SUPPORTING_WM_CHECK"), what="openbox")
    try:
        yield env
    finally:
        for process in (manager, xvfb):
            process.terminate()
            process.wait(10)


@pytest.fixture
def app_windows() -> Iterator[None]:
    """The app window's process a test opened, ended with it (and the window's server)."""
    yield
    for record in ("window-app.json", "window.json"):
        with contextlib.suppress(OSError, ValueError, KeyError):
            end(int(json.loads((runtime_dir() / record).read_text(encoding="utf-8"))["pid"]))


def _x(env: dict[str, str], *argv: str) -> str:
    done = subprocess.run(argv, env={**os.environ, **env}, capture_output=True, text=True, timeout=30)
    return done.stdout.strip()


def _ui(env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    """`acp-tray ui` as the tray runs it, on this display, where the app window is chosen."""
    shown = cli("ui", *args, env={k: v for k, v in cli_env(**env).items() if k != "ACP_TRAY_WINDOW_IN"})
    assert shown.returncode == 0, shown.stderr
    return shown


def _app_windows(env: dict[str, str]) -> list[str]:
    return _x(env, "xdotool", "search", "--onlyvisible", "--name", f"{SUFFIX}$").split()


def _active(env: dict[str, str]) -> str:
    return _x(env, "xdotool", "getactivewindow", "getwindowname")


def _daemon(daemons: list[DaemonProcess], env: dict[str, str]) -> DaemonProcess:
    config = paths.config_file()
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text('notifier = "console"\n' + DEMO, encoding="utf-8")
    daemon = DaemonProcess("run", "--headless", env=cli_env(**env, ACP_TRAY_DEMO_INTERVAL="3600"))
    daemons.append(daemon)
    daemon.wait_for_lines("demo  connected")
    return daemon


def test_three_opens_make_one_app_window_that_comes_to_the_front(
    screen: dict[str, str], daemons: list[DaemonProcess], app_windows: None
) -> None:
    _daemon(daemons, screen)
    for page in ("overview", "agents", "history"):
        assert _ui(screen, "--page", page).stdout.strip() == "opened the acp-tray window"
    until(lambda: _active(screen) == f"History{SUFFIX}", what="the app window at the history")
    # one window (looked for by its title, which a page's load renames for a moment: asked until it answers)
    found = until(lambda: _app_windows(screen), what="the app window by its title")
    assert len(found) == 1, _x(screen, "xdotool", "search", "--name", "acp-tray")
    (window,) = found

    other = subprocess.Popen(["xterm", "-T", "another window"], env={**os.environ, **screen})
    try:
        until(lambda: _active(screen) == "another window", what="another window in front")
        _ui(screen, "--page", "sessions")
        until(lambda: _active(screen) == f"Sessions{SUFFIX}", what="the app window in front again")
        _x(screen, "xdotool", "windowminimize", window)
        until(lambda: "HIDDEN" in _x(screen, "xprop", "-id", window, "_NET_WM_STATE"), what="the window minimised")
        _ui(screen)
        until(lambda: _active(screen) == f"Overview{SUFFIX}", what="the minimised window back in front")
        assert "HIDDEN" not in _x(screen, "xprop", "-id", window, "_NET_WM_STATE")
        assert _app_windows(screen) == [window]
    finally:
        other.terminate()
        other.wait(10)


def test_the_app_window_shows_its_page_again_when_the_daemon_stops_and_starts(
    screen: dict[str, str], daemons: list[DaemonProcess], app_windows: None
) -> None:
    daemon = _daemon(daemons, screen)
    _ui(screen, "--page", "agents")
    until(lambda: _active(screen) == f"Agents{SUFFIX}", what="the app window")
    (window,) = _app_windows(screen)
    assert cli("quit").returncode == 0
    daemon.proc.wait(30)
    # the window's server outlives the daemon while a page is open (the page says acp-tray is down), or ends
    # with it: either way the app window is not closed, and shows its page again once the daemon is back
    _x(screen, "xdotool", "set_window", "--name", "before the daemon is back", window)
    _daemon(daemons, screen)  # nothing opens the window: it comes back by itself
    until(lambda: _x(screen, "xdotool", "getwindowname", window) == f"Agents{SUFFIX}", what="the page again")
    assert (runtime_dir() / "window.json").exists()  # a window server answers it (the one kept, or a new one)
    assert _app_windows(screen) == [window]


def test_without_a_web_view_the_window_opens_in_the_browser_and_a_notification_says_what_to_do(
    tmp_path: Path, dmenu: Path, desktop: Any, daemons: list[DaemonProcess], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The notification's "Open", with pywebview missing (a `webview` that cannot be imported first
    on the path): the browser is asked instead, and the person is told why, with what to install."""
    missing = tmp_path / "no-web-view" / "webview"
    missing.mkdir(parents=True)
    (missing / "__init__.py").write_text("raise ImportError(\"No module named 'webview'\")\n", encoding="utf-8")
    monkeypatch.delenv("ACP_TRAY_WINDOW_IN")
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join([str(missing.parent), os.environ.get("PYTHONPATH", "")]))
    opened = Path(os.environ["ACP_TRAY_TEST_OPENED"])
    demo_daemon(tmp_path, daemons, desktop)
    mark = desktop.mark()
    title = "Example: Using default settings"

    def chosen() -> bool:
        pick(dmenu, f"#Open (demo: {title})")  # dunst invokes the notification's default action
        return bool(until(lambda: (dmenu / "menu").exists(), what="dunst's context menu"))

    until(chosen, timeout=30, what="dunst's Open chosen")
    until(opened.exists, timeout=30, what="the browser asked to open the window")  # once: the Open is not chosen again
    shown: list[dict[str, Any]] = []

    def said() -> list[dict[str, Any]]:
        shown[:] = desktop.since(mark)
        return [n for n in shown if "The acp-tray window opened in your browser" in n["summary"]]

    try:
        (notification,) = until(said, timeout=60, what="the notification saying why")
    except AssertionError:
        raise AssertionError(f"shown instead: {shown}") from None
    assert "pywebview is not installed" in notification["body"], notification
    assert not list(runtime_dir().glob("window-app.*"))  # no app window was left behind
    log = paths.log_file().with_name("window.log")
    assert "no app window (pywebview is not installed" in log.read_text(encoding="utf-8")
