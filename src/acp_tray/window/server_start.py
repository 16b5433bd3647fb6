"""Start the window's server for this user when none runs (window/where.py finds a running one):
what `acp-tray ui` and the tray's "Open acp-tray…" do the first time. No web stack is imported
here: the server is a process of its own. The new server says on its standard output that it is
there (window/server.py `READY`); this command sleeps until it does, or ends."""

from __future__ import annotations

import contextlib
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

from acp_tray.desktop.terminal_window import cli_command
from acp_tray.files import paths
from acp_tray.files.private import make_dir, open_append
from acp_tray.window.where import Running, record_path, running

START_WAIT = 15.0  # seconds for a new window server to say where it is
EXIT_NO_DAEMON = 3  # the window's server ends at start with this when acp-tray is not running


class WindowError(Exception):
    """The window's server could not be reached or started: the message says why; `no_daemon`: because
    acp-tray is not running (the server asks the daemon before it listens)."""

    def __init__(self, message: str, *, no_daemon: bool = False) -> None:
        super().__init__(message)
        self.no_daemon = no_daemon


def start(port: int | None = None) -> Running:
    """A new window server (at `port`, or one the system picks), once it has said where it is;
    WindowError with its own words if it ended."""
    log = log_path()
    make_dir(log.parent)
    with open_append(log) as errors:
        process = subprocess.Popen(
            [*cli_command(), "window-server", *(["--port", str(port)] if port else [])],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,  # its one line: it is there
            stderr=errors,
            close_fds=True,
            **detached(),
        )
    said = first_line(process, START_WAIT)
    if said:
        window = running()
        if window is not None and window.pid == process.pid:
            return window
        process.terminate()
        raise WindowError(f"the window's server started, but its record in {record_path()} does not hold")
    if process.poll() is None:  # no line, and still there: it may have closed its output, or be stuck
        with contextlib.suppress(subprocess.TimeoutExpired):
            process.wait(1.0)
    if process.poll() is None:
        process.terminate()
        raise WindowError(f"the window's server did not start within {START_WAIT:g} s; see {log}")
    no_daemon = process.returncode == EXIT_NO_DAEMON
    raise WindowError(
        last_line(log) or f"the window's server ended at start (exit {process.returncode})", no_daemon=no_daemon
    )


def first_line(process: subprocess.Popen[bytes], wait: float) -> str:
    """The first line a new process of the window's says on its standard output, once it says it ("" if
    it ends first, or says nothing within `wait` seconds); its standard output is closed here after."""
    said: list[bytes] = []
    out = process.stdout
    assert out is not None
    reader = threading.Thread(target=lambda: said.append(out.readline()), daemon=True)
    reader.start()
    reader.join(wait)
    if reader.is_alive():
        return ""
    out.close()
    return said[0].decode("utf-8", "replace").strip() if said else ""


def log_path() -> Path:
    """Where the window's processes (its server, the app window) say what went wrong."""
    return paths.log_file().with_name("window.log")


def detached() -> dict[str, Any]:
    """It outlives this command, and a Ctrl+C in its terminal: a session of its own, or on Windows a
    process group of its own without a console."""
    if sys.platform == "win32":
        return {"creationflags": subprocess.CREATE_NEW_PROCESS_GROUP | subprocess.DETACHED_PROCESS}
    return {"start_new_session": True}


def last_line(log: Path) -> str:
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
