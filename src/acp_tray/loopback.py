"""The one rule for the web addresses acp-tray fetches or opens: https://, or plain http:// only to
this machine's own loopback ("localhost", 127.0.0.0/8, ::1), where it stays on the machine
(registry downloads from a local server, a page a question asks to have opened)."""

from __future__ import annotations

import ipaddress
from urllib.parse import urlsplit


def _is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def web_address_problem(url: str, used: str) -> str | None:
    """Why `url` is not https:// (or http:// to a loopback address), in plain words ending with what
    is `used` ("fetched", "opened"); None when it is."""
    try:
        parts = urlsplit(url)
        host = parts.hostname or ""
    except ValueError:
        return f"the address is not a valid URL (only https:// is {used})"
    if parts.scheme not in ("https", "http"):
        return f"it is not a web address ({parts.scheme or 'no'} scheme; only https:// is {used})"
    if not host:
        return f"the address names no host (only https:// is {used})"
    if parts.scheme == "http" and not _is_loopback(host):
        return f"it is plain http:// to another machine (only https:// is {used})"
    return None
