"""Where the window's server for this user is, if one runs, and how to show its address: what
`acp-tray ui` needs when the window is already open (the tray's "Open acp-tray…" every time but the
first), so it imports the standard library only; starting a server is window/launch.py."""

from __future__ import annotations

import json
import os
import socket
import sys
from dataclasses import dataclass
from urllib.parse import urlencode

from acp_tray.control.endpoint import runtime_dir

WHERE = "window.json"  # written by window/server.py


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


def open_in_browser(url: str) -> bool:
    """The person's default browser, as the desktop opens links; False when there is none."""
    import webbrowser

    try:
        return webbrowser.open(url, new=2)
    except webbrowser.Error:
        return False


def environment_has_display() -> bool:
    return sys.platform in ("win32", "darwin") or bool(os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY"))
