"""Which URLs acp-tray fetches (the ACP Registry's index and downloads, the `registry` preference):
https:// only, plain http:// only to this machine's own loopback addresses (what the tests serve
on), by the rule of loopback.py. Light to import: the preferences model uses it.
"""

from __future__ import annotations

from acp_tray.loopback import web_address_problem

DEFAULT_URL = "https://cdn.agentclientprotocol.com/registry/v1/latest/registry.json"


class URLRefusedError(ValueError):
    """Not a URL acp-tray fetches from; `str()` says why."""


def check_url(url: str) -> str:
    """`url`, if it is https:// (or http:// to a loopback address); else URLRefusedError."""
    problem = web_address_problem(url, "fetched")
    if problem is not None:
        raise URLRefusedError(f"{url}: refused, {problem}")
    return url


def openable(url: str) -> bool:
    """Whether `url` may be offered as a link: https anywhere, http only on this machine's loopback
    (the rule of what acp-tray itself fetches)."""
    try:
        check_url(url)
    except URLRefusedError:
        return False
    return True
