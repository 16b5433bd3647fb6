"""Which URLs the registry code fetches: https:// only, plain http:// only to this machine's own
loopback addresses (what the tests serve on). Light to import: the preferences model uses it.
"""

from __future__ import annotations

from urllib.parse import urlsplit

from acp_tray.loopback import is_loopback

DEFAULT_URL = "https://cdn.agentclientprotocol.com/registry/v1/latest/registry.json"


class URLRefusedError(ValueError):
    """Not a URL acp-tray fetches from; `str()` says why."""


def check_url(url: str) -> str:
    """`url`, if it is https:// (or http:// to a loopback address); else URLRefusedError."""
    try:
        parts = urlsplit(url)
        host = parts.hostname
    except ValueError:
        raise URLRefusedError(f"{url!r} is not a URL") from None
    if host and (parts.scheme == "https" or (parts.scheme == "http" and is_loopback(host))):
        return url
    raise URLRefusedError(f"{url}: refused, only https:// URLs are fetched (http:// only from this machine)")
