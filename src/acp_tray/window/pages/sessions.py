"""The Sessions page's routes: each agent's sessions and its prompt box (window/sessions_page.py), whose
handlers and prompt runs are built when the page is first used (window/first_use.py)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from starlette.routing import Route

from acp_tray.window.first_use import FirstUse
from acp_tray.window.render import Parts

if TYPE_CHECKING:
    from acp_tray.window.sessions_page import SessionsPage


def page(parts: Parts) -> SessionsPage:
    from acp_tray.window.sessions_page import SessionsPage

    return SessionsPage(parts)


def routes(parts: Parts) -> list[Route]:
    later = FirstUse(lambda: page(parts))
    return [
        later.route("/sessions", lambda p: p.page),
        later.route("/sessions/choices", lambda p: p.choices),
        later.route("/sessions/prompt", lambda p: p.prompt, ["POST"]),
        later.route("/sessions/turns/{run}/events", lambda p: p.events),
        later.route("/sessions/turns/{run}/cancel", lambda p: p.cancel, ["POST"]),
        later.route("/sessions/cancel", lambda p: p.cancel_session, ["POST"]),
    ]
