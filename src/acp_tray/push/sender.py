"""One push through Apprise (blocking: run it in a worker thread). Apprise is imported here only,
when a target is used, and its logger is kept at INFO: at DEBUG it writes the URLs it posts to
(and an ntfy push's buttons, which carry their tokens)."""

from __future__ import annotations

import logging
from typing import Any

QUIET = logging.INFO  # Apprise's own logging: what it sent or why it failed, never its URLs


def _apprise() -> Any:
    import apprise  # imported when something is pushed: the daemon without targets never loads it

    logging.getLogger("apprise").setLevel(QUIET)
    return apprise


def ntfy_plugin() -> Any:
    """Apprise's ntfy service (its URL parser and sender)."""
    _apprise()
    from apprise.plugins.ntfy import NotifyNtfy

    return NotifyNtfy


def apprise_version() -> str:
    """Apprise's version; ImportError (or another exception of a broken install) when it does not load."""
    return str(_apprise().__version__)


def url_problem(url: str) -> str | None:
    """Why Apprise cannot push to `url` (a service it does not know, a malformed URL), or None."""
    apprise = _apprise()
    if apprise.Apprise().add(url):
        return None
    return "Apprise does not know that URL: see https://github.com/caronc/apprise/wiki for each service's form"


def deliver(url: str, title: str, body: str, actions: str = "") -> bool:
    """Push one message to `url`; whether the service accepted it. `actions`: an ntfy push's buttons
    (ntfy's JSON array, sent as its `X-Actions` header); only for an ntfy URL."""
    apprise = _apprise()
    pusher = apprise.Apprise()
    if actions:
        plugin = ntfy_plugin()
        parsed = plugin.parse_url(url)
        if not parsed or not pusher.add(plugin(**{**parsed, "actions": actions})):
            return False
    elif not pusher.add(url):
        return False
    return bool(pusher.notify(body=body or title, title=title, body_format=apprise.NotifyFormat.TEXT))
