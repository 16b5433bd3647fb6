"""One app window per user: the lock its process holds, its private channel, and asking the running
one to show a page (what a second `acp-tray ui` does instead of opening another window).

The channel is a Unix socket in the private runtime directory (a named pipe on Windows), made with
`multiprocessing.connection` and its key: a random secret in a 0600 record beside the lock, so only
this user's processes can connect. What is sent is JSON bytes (never pickled): the page to show and
the history entry to highlight; the window makes its own one-shot key for the page. Standard
library only: `acp-tray ui` uses it before anything heavy."""

from __future__ import annotations

import contextlib
import json
import os
import secrets
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from multiprocessing import AuthenticationError
from multiprocessing.connection import Client, Connection, Listener
from pathlib import Path
from typing import Any

from acp_tray.control.endpoint import APP, runtime_dir
from acp_tray.control.instance import AlreadyRunningError, InstanceLock, lock_held
from acp_tray.files.atomic import write_atomically
from acp_tray.files.private import make_dir

LOCK = "window-app.lock"
RECORD = "window-app.json"
SOCKET = "window-app.sock"
ASK_WAIT = 10.0  # seconds a second open waits for a window still starting to take its request
SHOWN = b"shown"


@dataclass(frozen=True)
class Show:
    """What a person asked to see: a page of the window, and the history entry it is about."""

    page: str = "overview"
    highlight: str = ""

    def encode(self) -> bytes:
        return json.dumps({"page": self.page, "highlight": self.highlight}).encode()

    @classmethod
    def decode(cls, data: bytes) -> Show | None:
        try:
            found = json.loads(data)
            return cls(str(found["page"]), str(found.get("highlight") or ""))
        except (ValueError, KeyError, TypeError):
            return None


def _address() -> tuple[str, str]:
    if sys.platform == "win32":
        user = os.environ.get("USERNAME", "user")
        return rf"\\.\pipe\{APP}-window-{user}", "AF_PIPE"
    return str(runtime_dir() / SOCKET), "AF_UNIX"


def running() -> bool:
    """Whether an app window's process holds the lock (it may still be starting)."""
    return lock_held(runtime_dir() / LOCK)


def ask_to_show(show: Show, wait: float = ASK_WAIT) -> bool:
    """Ask the running app window to show `show` and come to the front; False when none runs (or it
    did not answer within `wait` seconds: it is ending)."""
    deadline = time.monotonic() + wait
    last: Exception | None = None
    while running():
        try:
            record = json.loads((runtime_dir() / RECORD).read_text(encoding="utf-8"))
            address, family = _address()
            with Client(address, family=family, authkey=str(record["secret"]).encode()) as connection:
                connection.send_bytes(show.encode())
                return connection.recv_bytes(64) == SHOWN
        except (OSError, EOFError, AuthenticationError, ValueError, KeyError, TypeError) as exc:  # starting, ending
            last = exc
        if time.monotonic() > deadline:
            raise AppWindowError(f"the open acp-tray window did not answer ({last})")
        time.sleep(0.1)
    return False


class AppWindowError(Exception):
    """The app window could not be shown: the message says why."""


class Instance:
    """The app window's side: the lock (one per user) and the channel its requests arrive on."""

    def __init__(self) -> None:
        folder = runtime_dir()
        make_dir(folder)
        self._lock = InstanceLock(folder / LOCK)
        self._record = folder / RECORD
        self._listener: Listener | None = None

    def take(self) -> bool:
        """Hold the lock and listen; False when another app window holds it."""
        try:
            self._lock.acquire()
        except AlreadyRunningError:
            return False
        secret = secrets.token_hex(32)
        address, family = _address()
        if family == "AF_UNIX":
            with contextlib.suppress(FileNotFoundError):
                Path(address).unlink()  # left by a window that was killed (the lock says none runs)
        old = os.umask(0o077) if family == "AF_UNIX" else None
        try:
            self._listener = Listener(address, family=family, authkey=secret.encode())
        finally:
            if old is not None:
                os.umask(old)
        write_atomically(self._record, json.dumps({"pid": os.getpid(), "secret": secret}), mode=0o600)
        return True

    def requests(self, on_show: Callable[[Show], None]) -> None:
        """Take requests until the channel is closed: each is shown by `on_show`, then answered."""
        assert self._listener is not None
        while True:
            try:
                connection = self._listener.accept()
            except (OSError, EOFError, AuthenticationError):  # closed (the window ended), or a client without the key
                if self._listener is None:
                    return
                continue
            with _closing(connection):
                show = Show.decode(connection.recv_bytes(1024))
                if show is not None:
                    on_show(show)
                    connection.send_bytes(SHOWN)

    def release(self) -> None:
        listener, self._listener = self._listener, None
        if listener is not None:
            with contextlib.suppress(OSError):
                listener.close()
        with contextlib.suppress(OSError):
            self._record.unlink()
        self._lock.release()


@contextlib.contextmanager
def _closing(connection: Connection) -> Iterator[Any]:
    try:
        yield connection
    except (OSError, EOFError):
        pass  # the asking side went away: nothing to answer
    finally:
        connection.close()
