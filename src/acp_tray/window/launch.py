"""Find the window's server for this user, or start one, and give the address to open: what
`acp-tray ui` and the tray's "Open acp-tray…" do. Standard library only (no web stack is
imported to open a browser)."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

from acp_tray.control.endpoint import runtime_dir
from acp_tray.desktop.terminal_window import cli_command
from acp_tray.files import paths
from acp_tray.files.private import make_dir, open_append

START_WAIT = 15.0  # seconds for a new window server to say where it is
WHERE = "window.json"  # written by window/server.py


class WindowError(Exception):
    """The window's server could not be reached or started: the message says why."""


@dataclass(frozen=True)
class Running:
    pid: int
    port: int
    key: str

    def url(self, page: str = "overview", **extra: str) -> str:
        query = urlencode({"key": self.key, "page": page, **{k: v for k, v in extra.items() if v}})
        return f"http://127.0.0.1:{self.port}/open?{query}"


def _answers(port: int) -> bool:
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=1.0):
            return True
    except OSError:
        return False


def running() -> Running | None:
    """The window server already running for this user, if one is there and answers."""
    path = runtime_dir() / WHERE
    try:
        found = json.loads(path.read_text(encoding="utf-8"))
        window = Running(int(found["pid"]), int(found["port"]), str(found["key"]))
    except (OSError, ValueError, KeyError, TypeError):
        return None
    return window if _answers(window.port) else None


def start(port: int | None = None) -> Running:
    """A new window server (at `port`, or one the system picks), once it has said where it is;
    WindowError with its own words if it ended."""
    log = paths.log_file().with_name("window.log")
    make_dir(log.parent)
    with open_append(log) as errors:
        process = subprocess.Popen(
            [*cli_command(), "window-server", *(["--port", str(port)] if port else [])],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=errors,
            close_fds=True,
            **_detached(),
        )
    deadline = time.monotonic() + START_WAIT
    while time.monotonic() < deadline:
        window = running()
        if window is not None and window.pid == process.pid:
            return window
        if process.poll() is not None:
            raise WindowError(_last_line(log) or f"the window's server ended at start (exit {process.returncode})")
        time.sleep(0.05)
    process.terminate()
    raise WindowError(f"the window's server did not start within {START_WAIT:g} s; see {log}")


def _detached() -> dict[str, Any]:
    """It outlives this command, and a Ctrl+C in its terminal: a session of its own, or on Windows a
    process group of its own without a console."""
    if sys.platform == "win32":
        return {"creationflags": subprocess.CREATE_NEW_PROCESS_GROUP | subprocess.DETACHED_PROCESS}
    return {"start_new_session": True}


def _last_line(log: Path) -> str:
    try:
        lines = log.read_text(encoding="utf-8", errors="replace").strip().splitlines()
    except OSError:
        return ""
    return lines[-1].removeprefix("acp-tray ui: ") if lines else ""


def ensure(port: int | None = None) -> Running:
    """The running window server, or a new one; `port`: at that port (a server running at another
    is left to end on its own, when the daemon stops or no page is open)."""
    window = running()
    if window is not None and port in (None, window.port):
        return window
    return start(port)


def open_in_browser(url: str) -> bool:
    """The person's default browser, as the desktop opens links; False when there is none."""
    import webbrowser

    try:
        return webbrowser.open(url, new=2)
    except webbrowser.Error:
        return False


def environment_has_display() -> bool:
    return sys.platform in ("win32", "darwin") or bool(os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY"))
