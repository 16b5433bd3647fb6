"""Fetching from the network for the registry: HTTPS only (plain HTTP only to this machine's own
loopback addresses, which is what the tests serve on), a timeout for each read and a deadline for
the whole transfer (a server that sends a byte now and then is stopped too), a size bound,
redirects that stay on HTTPS, and a progress callback.
"""

from __future__ import annotations

import contextlib
import http.client
import socket
import ssl
import threading
import urllib.error
import urllib.request
from collections.abc import Callable
from functools import partial
from typing import IO, Any
from urllib.parse import urlsplit

from acp_tray import __version__
from acp_tray.prefs.urls import URLRefusedError, check_url

CHUNK = 64 * 1024
Progress = Callable[[int, int | None], None]  # bytes so far, total (None: not announced)


class TransferError(Exception):
    """A download that failed or was refused; `str()` says what, where and why."""


class _SecureRedirects(urllib.request.HTTPRedirectHandler):
    def redirect_request(
        self, req: urllib.request.Request, fp: IO[bytes], code: int, msg: str, headers: Any, newurl: str
    ) -> urllib.request.Request | None:
        try:
            check_url(newurl)
        except URLRefusedError as exc:
            raise TransferError(f"redirected to {exc}") from None
        return super().redirect_request(req, fp, code, msg, headers, newurl)


class _Deadline:
    """Ends a transfer's connections when its time is up: a read waiting on one returns at once."""

    def __init__(self, seconds: float) -> None:
        self.passed = False
        self._sockets: list[socket.socket] = []
        self._lock = threading.Lock()
        self._timer = threading.Timer(seconds, self._end)
        self._timer.daemon = True

    def __enter__(self) -> _Deadline:
        self._timer.start()
        return self

    def __exit__(self, *_: object) -> None:
        self._timer.cancel()

    def watch(self, sock: socket.socket) -> None:
        with self._lock:
            self._sockets.append(sock)
            if self.passed:
                _shut(sock)

    def _end(self) -> None:
        with self._lock:
            self.passed = True
            for sock in self._sockets:
                _shut(sock)


def _shut(sock: socket.socket) -> None:
    """The connection, shut for reading and writing (the plain socket's: under TLS too)."""
    with contextlib.suppress(OSError):  # already closed
        socket.socket.shutdown(sock, socket.SHUT_RDWR)


class _Watched(http.client.HTTPConnection):
    def __init__(self, *args: Any, deadline: _Deadline, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._deadline = deadline

    def connect(self) -> None:
        super().connect()
        self._deadline.watch(self.sock)


class _WatchedHTTPS(_Watched, http.client.HTTPSConnection):
    pass


class _HTTP(urllib.request.HTTPHandler):
    def __init__(self, deadline: _Deadline) -> None:
        super().__init__()
        self._deadline = deadline

    def http_open(self, req: urllib.request.Request) -> http.client.HTTPResponse:
        return self.do_open(partial(_Watched, deadline=self._deadline), req)


class _HTTPS(urllib.request.HTTPSHandler):
    def __init__(self, deadline: _Deadline) -> None:
        super().__init__()
        self._deadline = deadline

    def https_open(self, req: urllib.request.Request) -> http.client.HTTPResponse:
        return self.do_open(partial(_WatchedHTTPS, deadline=self._deadline), req)


def fetch(
    url: str, *, timeout: float, deadline: float, limit: int, progress: Progress | None = None, sink: IO[bytes]
) -> int:
    """Copy `url` into `sink`; at most `limit` bytes, each read within `timeout` seconds and all of
    it within `deadline` seconds (else TransferError). Returns the size."""
    try:
        check_url(url)
    except URLRefusedError as exc:
        raise TransferError(str(exc)) from None
    with _Deadline(deadline) as watch:
        try:
            size = _copy(url, min(timeout, deadline), watch, limit, progress, sink)
        except TransferError:
            if not watch.passed:
                raise
        else:
            if not watch.passed:  # else what came before the connection was shut is not all of it
                return size
    raise TransferError(f"{url}: not done within {deadline:g} s; download stopped")


def _copy(url: str, timeout: float, watch: _Deadline, limit: int, progress: Progress | None, sink: IO[bytes]) -> int:
    request = urllib.request.Request(url, headers={"User-Agent": f"acp-tray/{__version__}"})
    opener = urllib.request.build_opener(_SecureRedirects(), _HTTP(watch), _HTTPS(watch))
    try:
        with opener.open(request, timeout=timeout) as response:
            length = response.headers.get("Content-Length")
            total = int(length) if length and length.isdigit() else None
            if total is not None and total > limit:
                raise TransferError(f"{url}: {total} bytes is over the limit of {limit} bytes; not downloaded")
            size = 0
            while chunk := response.read1(CHUNK):  # what has come, not a whole chunk: the deadline is seen
                size += len(chunk)
                if size > limit:
                    raise TransferError(f"{url}: more than the limit of {limit} bytes; download stopped")
                sink.write(chunk)
                if progress is not None:
                    progress(size, total)
            if total is not None and size != total:
                raise TransferError(f"{url}: the connection ended after {size} of {total} bytes")
            return size
    except TransferError:
        raise
    except urllib.error.HTTPError as exc:
        found = "not found: " if exc.code in (404, 410) else ""
        raise TransferError(f"{url}: {found}the server answered {exc.code} {exc.reason}") from None
    except urllib.error.URLError as exc:
        raise TransferError(f"{url}: {plain_reason(exc.reason, url)}") from None
    except (OSError, ValueError, http.client.HTTPException) as exc:  # timeouts, resets, a malformed URL
        raise TransferError(f"{url}: {plain_reason(exc, url)}") from None


def plain_reason(reason: BaseException | str, url: str) -> str:
    """Why a connection to `url` failed, in plain words (no errno, no exception name)."""
    host = urlsplit(url).hostname or url
    if isinstance(reason, socket.gaierror):
        return f"cannot reach {host}: its name is not known here (no network, or a wrong address)"
    if isinstance(reason, ssl.SSLCertVerificationError):
        return f"cannot reach {host} safely: its certificate is not trusted ({reason.verify_message})"
    if isinstance(reason, ssl.SSLError):
        return f"cannot reach {host} safely: the secure connection (TLS) failed ({reason.reason or reason})"
    if isinstance(reason, ConnectionRefusedError):
        return f"cannot reach {host}: it refused the connection"
    if isinstance(reason, TimeoutError):
        return f"{host} did not answer in time"
    if isinstance(reason, ConnectionError | http.client.HTTPException):
        return f"{host} closed the connection before the answer was complete"
    if isinstance(reason, OSError) and reason.strerror:
        return f"cannot reach {host}: {reason.strerror}"
    return str(reason) or type(reason).__name__
