"""Fetching from the network for the registry: HTTPS only (plain HTTP only to this machine's own
loopback addresses, which is what the tests serve on), a timeout, a size bound, redirects that
stay on HTTPS, and a progress callback.
"""

from __future__ import annotations

import urllib.error
import urllib.request
from collections.abc import Callable
from typing import IO, Any

from acp_tray import __version__
from acp_tray.registry.urls import URLRefusedError, check_url

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


_OPENER = urllib.request.build_opener(_SecureRedirects())


def fetch(url: str, *, timeout: float, limit: int, progress: Progress | None = None, sink: IO[bytes]) -> int:
    """Copy `url` into `sink`; at most `limit` bytes (else TransferError). Returns the size."""
    try:
        check_url(url)
    except URLRefusedError as exc:
        raise TransferError(str(exc)) from None
    request = urllib.request.Request(url, headers={"User-Agent": f"acp-tray/{__version__}"})
    try:
        with _OPENER.open(request, timeout=timeout) as response:
            length = response.headers.get("Content-Length")
            total = int(length) if length and length.isdigit() else None
            if total is not None and total > limit:
                raise TransferError(f"{url}: {total} bytes is over the limit of {limit} bytes; not downloaded")
            size = 0
            while chunk := response.read(CHUNK):
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
        raise TransferError(f"{url}: the server answered {exc.code} {exc.reason}") from None
    except urllib.error.URLError as exc:
        raise TransferError(f"{url}: {exc.reason}") from None
    except (OSError, ValueError) as exc:  # timeouts, resets, a malformed URL
        raise TransferError(f"{url}: {exc or type(exc).__name__}") from None
