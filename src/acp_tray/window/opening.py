"""How `acp-tray ui` shows the window: in the app window (window/app_view.py, one per user: a
running one is asked to show the page and come to the front) where the desktop has a web view;
else in the default browser, with a word on why and what to do (`acp-tray ui` prints it and the
daemon, which runs `acp-tray ui` for the tray and notifications, shows it as a notification); and
`ACP_TRAY_WINDOW_IN=browser` or `acp-tray ui --browser` chooses the browser."""

from __future__ import annotations

import os
import subprocess
import time

from acp_tray.desktop.terminal_window import cli_command
from acp_tray.files.private import make_dir, open_append
from acp_tray.window.app_instance import AppWindowError, Show, ask_to_show
from acp_tray.window.server_start import detached, first_line, last_line, log_path

APP_START_WAIT = 30.0  # seconds for a new app window to say it is shown (a web view's first start)
CHOICE = "ACP_TRAY_WINDOW_IN"  # "browser": never the app window


def prefers_browser() -> bool:
    return os.environ.get(CHOICE, "").strip().lower() == "browser"


def show_in_app(show: Show) -> str | None:
    """Show `show` in the app window (the open one, or a new one); why it could not be, or None."""
    try:
        if ask_to_show(show):
            return None
    except AppWindowError as exc:
        return str(exc)
    return _start(show)


def _start(show: Show) -> str | None:
    log = log_path()
    make_dir(log.parent)
    highlight = ["--highlight", show.highlight] if show.highlight else []
    with open_append(log) as errors:
        process = subprocess.Popen(
            [*cli_command(), "window-app", "--page", show.page, *highlight],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=errors,
            close_fds=True,
            **detached(),
        )
    word = first_line(process, APP_START_WAIT)
    if word == "shown":
        return None
    if word.startswith("failed: "):
        return word.removeprefix("failed: ")
    if process.poll() is None:
        process.terminate()
        return f"the app window did not open within {APP_START_WAIT:g} s; see {log}"
    return last_line(log) or f"the app window ended at start (exit {process.returncode}); see {log}"


def note(text: str) -> None:
    """Keep a word on how the window opened in the window's log (the terminal, or the daemon, says it too)."""
    log = log_path()
    make_dir(log.parent)
    with open_append(log) as kept:
        kept.write(f"{time.strftime('%Y-%m-%d %H:%M:%S')} acp-tray ui: {text}\n")
