"""Whether a host is this machine's own loopback ("localhost", 127.0.0.0/8, ::1): where plain
http:// stays on the machine (registry downloads, a page a question asks to have opened)."""

from __future__ import annotations

import ipaddress


def is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False
