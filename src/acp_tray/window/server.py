"""The window's process (`python -m acp_tray.window.server`, started by `acp-tray ui`): serves the
pages on 127.0.0.1 at a random port (or the one `acp-tray ui --port` asks for), writes where it
is (its pid, port and secret: window/keys.py) to a 0600 file in the private runtime directory,
and ends when no page has been open for IDLE seconds. When the daemon stops it ends too, unless a
page is open: that page says acp-tray is not running and comes back by itself when it runs again
(its session stays valid), so the window ends only once no page has been open for DOWN_IDLE
seconds while the daemon is down. It keeps no state of its own: everything comes from the
daemon's control API."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import errno
import json
import os
import socket
import sys
import time
from pathlib import Path

import anyio
import uvicorn

from acp_tray.control import api
from acp_tray.control.client import NoDaemonError, ReplyError, request
from acp_tray.control.endpoint import check_private_dir, runtime_dir
from acp_tray.files.atomic import write_atomically
from acp_tray.files.private import make_dir
from acp_tray.window.app import build_app
from acp_tray.window.connections import CONCURRENCY, WindowProtocol, most_files
from acp_tray.window.feed import Feed
from acp_tray.window.keys import new_secret
from acp_tray.window.server_start import EXIT_NO_DAEMON
from acp_tray.window.where import WHERE

IDLE = 600.0  # seconds without an open page before the window's process ends
DOWN_IDLE = 30.0  # the same while the daemon is down (a page being reloaded is not left without a server)
EXIT_FAILED = 1
EXIT_PORT = 4
READY = "acp-tray window: serving on 127.0.0.1:{port}"  # the one line on its standard output


def idle_limit() -> float:
    try:
        return float(os.environ.get("ACP_TRAY_WINDOW_IDLE", IDLE))
    except ValueError:
        return IDLE


class Window:
    """The server, its connection to the daemon, and the reasons it ends."""

    def __init__(self, sock: socket.socket, secret: str) -> None:
        self._sock = sock
        self.port: int = sock.getsockname()[1]
        self.secret = secret
        self._server: uvicorn.Server | None = None
        self._shutdown = anyio.Event()
        self._feed: Feed | None = None
        self.ended = ""

    async def run(self) -> None:
        feed = Feed(asyncio.get_running_loop(), self._down)
        self._feed = feed
        app = build_app(port=self.port, secret=self.secret, feed=feed, shutdown=self._shutdown)
        config = uvicorn.Config(
            app,
            log_level="warning",
            access_log=False,
            lifespan="off",
            timeout_graceful_shutdown=3,
            http=WindowProtocol,  # the connection's own checks: its user, a head in time
            limit_concurrency=CONCURRENCY,
        )
        self._server = uvicorn.Server(config)
        feed.start()
        watchdog = asyncio.create_task(self._idle(feed))
        try:
            await self._server.serve(sockets=[self._sock])
        finally:
            watchdog.cancel()
            feed.stop()
            self._shutdown.set()

    def _down(self, reason: str) -> None:
        """The daemon stopped: the window ends with it when no page is open to say so."""
        if self._feed is None or not self._feed.pages:
            self._end(reason)

    def _end(self, reason: str) -> None:
        self.ended = reason
        self._shutdown.set()  # open event streams end, so the server can
        if self._server is not None:
            self._server.should_exit = True

    async def _idle(self, feed: Feed) -> None:
        last_seen = time.monotonic()
        while True:
            limit = min(idle_limit(), DOWN_IDLE) if feed.down else idle_limit()
            await asyncio.sleep(min(limit, 30.0) / 2)
            if feed.pages:
                last_seen = time.monotonic()
            elif time.monotonic() - last_seen >= limit:
                self._end(f"no page open for {limit:g} s" + (" while acp-tray is not running" if feed.down else ""))
                return


def _record(window: Window) -> Path:
    """Where this window is, for the next `acp-tray ui` (0600, in the private runtime directory)."""
    folder = runtime_dir()
    make_dir(folder)
    if sys.platform != "win32":  # on Windows the folder is in the person's own profile, private by its ACL
        check_private_dir(folder)
    path = folder / WHERE
    write_atomically(path, json.dumps({"pid": os.getpid(), "port": window.port, "secret": window.secret}), mode=0o600)
    return path


def _forget(path: Path) -> None:
    """Remove the record, if it is still this process's (a newer window may have replaced it)."""
    with contextlib.suppress(OSError, ValueError):
        if json.loads(path.read_text(encoding="utf-8")).get("pid") == os.getpid():
            path.unlink()


class PortUnavailableError(Exception):
    """The port asked for cannot be had: the message says so in plain words."""


def listen(port: int) -> socket.socket:
    """A listening socket on 127.0.0.1 only, at `port` (0: one the system picks); PortUnavailableError
    when something else has it."""
    # TCP named: asyncio then sets TCP_NODELAY on each connection, so an answer's body is not held
    # back (Nagle) until the browser acknowledges its head, which it delays by up to 40 ms
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    if sys.platform != "win32":  # a port left in TIME_WAIT by the last window is free again (never a live one)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind(("127.0.0.1", port))
        sock.listen(64)  # connections wait in the backlog until the server accepts them
    except OSError as exc:
        sock.close()
        if exc.errno in (errno.EADDRINUSE, errno.EACCES):
            why = "is in use" if exc.errno == errno.EADDRINUSE else "needs privileges"
            raise PortUnavailableError(f"port {port} on 127.0.0.1 {why}: choose another with --port") from None
        raise
    return sock


def _say_ready(port: int) -> None:
    """Say it is there (its record written, its socket listening) to `acp-tray ui`, which holds the
    other end of its standard output and ends once it has read it: later output goes nowhere."""
    with contextlib.suppress(OSError, ValueError):
        print(READY.format(port=port), flush=True)
        nowhere = os.open(os.devnull, os.O_WRONLY)
        os.dup2(nowhere, sys.stdout.fileno())
        os.close(nowhere)


def main(argv: list[str] | None = None) -> int:
    """`acp-tray window-server [--port N]` (started by `acp-tray ui`)."""
    parser = argparse.ArgumentParser(prog="acp-tray window-server")
    parser.add_argument("--port", type=int, default=0)
    port = parser.parse_args(argv).port
    try:
        request(api.STATUS, api.Args(), timeout=10.0)
    except (NoDaemonError, ReplyError) as exc:  # `acp-tray ui` says it, from the window's log
        print(f"acp-tray ui: {exc}", file=sys.stderr)
        return EXIT_NO_DAEMON if isinstance(exc, NoDaemonError) else EXIT_FAILED
    try:
        sock = listen(port)
    except PortUnavailableError as exc:
        print(f"acp-tray ui: {exc}", file=sys.stderr)
        return EXIT_PORT
    most_files()
    window = Window(sock, new_secret())
    path = _record(window)
    _say_ready(window.port)
    try:
        asyncio.run(window.run())
    except KeyboardInterrupt:
        pass
    finally:
        _forget(path)
        sock.close()
    print(f"acp-tray window ended: {window.ended or 'stopped'}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
