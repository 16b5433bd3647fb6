"""Where the window's server for this user is, if one runs and is really its own, and the one-shot
address that opens it: what `acp-tray ui` needs when the window is already open (the tray's "Open
acp-tray…" every time but the first), so it imports the standard library only; starting a server
is window/server_start.py, the browser's redirect file window/redirect.py.

A recorded window is trusted only when its process is alive and ours (on Linux: our user id, and
its command line is the window's server) and the server at its port answers a challenge that only
the holder of the record's secret can; otherwise the record is dropped (and a new window starts):
a stale record never sends anything secret to whatever listens on an old port now."""

from __future__ import annotations

import contextlib
import hmac
import json
import os
import secrets
import socket
import sys
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlencode

from acp_tray.control.endpoint import runtime_dir
from acp_tray.window.keys import challenge_answer, opening_key

WHERE = "window.json"  # written by window/server.py
SERVER_ARG = b"window-server"  # the window's process: `acp-tray window-server`
CHALLENGE_WAIT = 5.0  # seconds for the window's answer
MOST_ANSWER = 4096  # bytes of the window's answer read (its head and a MAC)


@dataclass(frozen=True)
class Running:
    pid: int
    port: int
    secret: str  # from the 0600 record; never sent

    def address(self, key: str, page: str = "overview", **extra: str) -> str:
        """The window's address that opens it with the one-shot `key`."""
        query = urlencode({"key": key, "page": page, **{k: v for k, v in extra.items() if v}})
        return f"http://127.0.0.1:{self.port}/open?{query}"

    def url(self, page: str = "overview", **extra: str) -> str:
        """An address that opens the window once, within a minute (a new key each time)."""
        return self.address(opening_key(self.secret, self.port), page, **extra)


def record_path() -> Path:
    return runtime_dir() / WHERE


def _recorded() -> tuple[Running, str] | None:
    try:
        text = record_path().read_text(encoding="utf-8")
        found = json.loads(text)
        return Running(int(found["pid"]), int(found["port"]), str(found["secret"])), text
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return None


def _ours(pid: int) -> bool:
    """The process is alive, runs as this user and (on Linux) is the window's server. Elsewhere the
    challenge alone decides (on Windows a process cannot be probed without risk of ending it)."""
    if sys.platform == "win32":
        return True
    if sys.platform.startswith("linux"):
        try:
            owner = os.stat(f"/proc/{pid}").st_uid
            argv = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
        except OSError:
            return False
        return owner == os.getuid() and SERVER_ARG in argv
    try:
        os.kill(pid, 0)
    except OSError:  # gone, or another user's (PermissionError)
        return False
    return True


def _answers_challenge(window: Running) -> bool:
    """The server at the window's port proves it holds the secret: its MAC of a fresh nonce and its
    port (the nonce is all it is sent). One HTTP/1.1 request over a plain socket: the standard
    library's HTTP client would cost this command more than the rest of it."""
    nonce = secrets.token_urlsafe(16)
    head = f"GET /challenge?nonce={nonce} HTTP/1.1\r\nHost: 127.0.0.1:{window.port}\r\nConnection: close\r\n\r\n"
    try:
        with socket.create_connection(("127.0.0.1", window.port), timeout=CHALLENGE_WAIT) as connection:
            connection.sendall(head.encode("ascii"))
            answer = _read_all(connection)
    except OSError:
        return False
    status, _, said = answer.partition(b"\r\n\r\n")
    expected = challenge_answer(window.secret, window.port, nonce).encode()
    return status.split(b" ", 2)[1:2] == [b"200"] and hmac.compare_digest(said, expected)


def _read_all(connection: socket.socket) -> bytes:
    """What the server sends until it closes the connection (at most MOST_ANSWER bytes)."""
    answer = b""
    while len(answer) < MOST_ANSWER:
        chunk = connection.recv(MOST_ANSWER - len(answer))
        if not chunk:
            break
        answer += chunk
    return answer


def _drop(text: str) -> None:
    """Remove the record, if it still says what was read (a new window may have replaced it)."""
    path = record_path()
    with contextlib.suppress(OSError):
        if path.read_text(encoding="utf-8") == text:
            path.unlink()


def running() -> Running | None:
    """The window server running for this user, if its record is there and the server proves to be
    it; a record that does not hold is dropped."""
    found = _recorded()
    if found is None:
        return None
    window, text = found
    if _ours(window.pid) and _answers_challenge(window):
        return window
    _drop(text)
    return None
