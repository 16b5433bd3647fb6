"""The app window (`acp-tray window-app --page PAGE [--highlight ID]`, started by `acp-tray ui`): the
window's pages in the system's web view through pywebview (WebKitGTK on Linux, WebView2 on Windows,
WKWebView on macOS), one per user (window/app_instance.py): a second open shows the page it asks
for and brings the window to the front. It makes its own one-shot keys from the window server's
0600 record, so no key is ever on a command line; when the daemon stops and starts again, it
starts a new window server and loads the page again by itself. It tells `acp-tray ui` on its
standard output "shown", or "failed: WHY", then lets go of that pipe."""

from __future__ import annotations

import argparse
import contextlib
import os
import sys
import threading
import time
from functools import partial
from typing import Any, get_args
from urllib.parse import urlsplit

from acp_tray.control import api
from acp_tray.control.client import NoDaemonError, ReplyError, call, request
from acp_tray.presentation.window_pages import WindowPage
from acp_tray.window.app_instance import AppWindowError, Instance, Show, ask_to_show
from acp_tray.window.server_start import WindowError, ensure
from acp_tray.window.where import running

TITLE = "acp-tray"
FOLLOW_WAIT = 1.0  # seconds between looks for the daemon, only while it is down
PAGES = get_args(WindowPage)
INSTALL_WEBKIT = "install WebKitGTK's introspection data (on Debian and Ubuntu: sudo apt install gir1.2-webkit2-4.1)"
EXIT_NO_VIEW = 2


def web_view_problem() -> str | None:
    """Why the system's web view cannot open a window here, in plain words with what to do; None: it can."""
    try:
        import webview  # noqa: F401
    except ImportError:
        return "pywebview is not installed; install acp-tray's dependencies again (pip install pywebview)"
    if sys.platform in ("win32", "darwin"):
        return None
    try:
        import gi

        gi.require_version("Gtk", "3.0")
        _require_webkit(gi)
        from gi.repository import Gtk
    except (ImportError, ValueError):
        return f"the system's web view (WebKitGTK) is missing: {INSTALL_WEBKIT}"
    if not Gtk.init_check()[0]:
        return f"no display to open it on (DISPLAY={os.environ.get('DISPLAY', '')!r} cannot be opened)"
    return None


def _require_webkit(gi: Any) -> None:
    """WebKitGTK 4.1 (libsoup 3), else 4.0: the two pywebview's GTK backend takes."""
    try:
        gi.require_version("WebKit2", "4.1")
    except ValueError:
        gi.require_version("WebKit2", "4.0")


def page_url(show: Show) -> str:
    """A fresh one-shot address of the window's server at `show`'s page (a server is started when none
    runs); WindowError when none can be."""
    window = running() or ensure()
    return window.url(show.page, highlight=show.highlight)


def _say(word: str) -> None:
    """Tell `acp-tray ui` how the start went, then put /dev/null in the pipe's place (it may be gone)."""
    with contextlib.suppress(OSError):
        print(word, flush=True)
    with open(os.devnull, "w", encoding="utf-8") as nothing:
        os.dup2(nothing.fileno(), sys.stdout.fileno())


class AppWindow:
    """The one web view window, what shows a page in it, and what follows the daemon."""

    def __init__(self, show: Show) -> None:
        import webview

        self._webview = webview
        self._first = show
        view = webview.create_window(TITLE, page_url(show), width=1100, height=800, min_size=(420, 360))
        assert view is not None  # None only for a window made while the GUI loop runs elsewhere
        self.view = view
        self.view.events.shown += partial(_say, "shown")
        self.view.events.loaded += self._titled

    def _titled(self) -> None:
        """The window's title names the page it shows ("History · acp-tray"), as the page's own title
        does (read from its address: the pages' policy allows no script from outside them); a load that
        showed no page (the window's server gone meanwhile) leaves it plain "acp-tray"."""
        page = self._shown()
        self.view.set_title(f"{page.capitalize()} · {TITLE}" if page else TITLE)

    def show(self, show: Show) -> None:
        """Load `show`'s page and bring the window to the front (un-minimised)."""
        try:
            self.view.load_url(page_url(show))
        except WindowError as exc:  # the daemon is down: the page says so; the window still comes up
            print(f"acp-tray window: {exc}", file=sys.stderr, flush=True)
        self.view.show()
        self.view.restore()

    def current(self) -> Show:
        """The page the person is on (the first one asked when the address names none)."""
        return Show(self._shown() or self._first.page)

    def _shown(self) -> str | None:
        """The page the window's address names, if any (a load that failed stays at /open)."""
        path = urlsplit(self.view.get_current_url() or "").path.strip("/").split("/")[0]
        return path if path in PAGES else None

    def follow(self) -> None:
        """Each time the daemon stops and comes back: a new server, and the page loaded again."""
        while True:
            _until_daemon_stops()
            while not _daemon_answers():
                time.sleep(FOLLOW_WAIT)
            try:
                self.view.load_url(page_url(self.current()))
            except WindowError as exc:
                print(f"acp-tray window: {exc}", file=sys.stderr, flush=True)

    def run(self, instance: Instance) -> None:
        threading.Thread(target=instance.requests, args=(self.show,), name="open requests", daemon=True).start()
        threading.Thread(target=self.follow, name="daemon follower", daemon=True).start()
        if sys.platform in ("win32", "darwin"):
            self._webview.start(private_mode=True)
        else:
            self._webview.start(gui="gtk", private_mode=True)


def _until_daemon_stops() -> None:
    """Return when the daemon's `watch` stream ends (or it cannot be reached)."""
    try:
        with call(api.WATCH, api.Args(), timeout=None) as pending:
            while True:
                pending.next()
    except (NoDaemonError, ReplyError, OSError):
        return


def _daemon_answers() -> bool:
    try:
        request(api.STATUS, api.Args(), timeout=5.0)
    except (NoDaemonError, ReplyError, OSError):
        return False
    return True


def main(argv: list[str] | None = None) -> int:
    """`acp-tray window-app [--page PAGE] [--highlight ID]` (started by `acp-tray ui`)."""
    parser = argparse.ArgumentParser(prog="acp-tray window-app")
    parser.add_argument("--page", choices=PAGES, default="overview")
    parser.add_argument("--highlight", default="")
    args = parser.parse_args(argv)
    show = Show(args.page, args.highlight)
    instance = Instance()
    if not instance.take():  # another one started meanwhile: it shows the page
        try:
            _say("shown" if ask_to_show(show) else "failed: the open acp-tray window ended")
        except AppWindowError as exc:
            _say(f"failed: {exc}")
        return 0
    try:
        problem = web_view_problem()
        if problem is not None:
            _say(f"failed: {problem}")
            return EXIT_NO_VIEW
        try:
            window = AppWindow(show)
        except WindowError as exc:
            _say(f"failed: {exc}")
            return 1
        window.run(instance)
    finally:
        instance.release()
    return 0
