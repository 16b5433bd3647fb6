"""The window's pages, declared once: each one's name (what `acp-tray ui --page` and the tray's
"Open" name: presentation/actions.py `WindowPage`), its title in the nav, and the module that serves
it and its parts, in the nav's order. Every page module exports `routes(parts)`; window/app.py
assembles them from this list, and the nav (base.html) is drawn from it."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from starlette.routing import Route

from acp_tray.presentation.window_pages import WindowPage
from acp_tray.window.pages import agents, diagnostics, history, overview, preferences, sessions, welcome
from acp_tray.window.render import Parts


@dataclass(frozen=True)
class Page:
    name: WindowPage
    title: str
    routes: Callable[[Parts], list[Route]]

    @property
    def path(self) -> str:
        return f"/{self.name}"


PAGES = (
    Page("overview", "Overview", overview.routes),
    Page("agents", "Agents", agents.routes),
    Page("sessions", "Sessions", sessions.routes),
    Page("history", "History", history.routes),
    Page("preferences", "Preferences", preferences.routes),
    Page("diagnostics", "Diagnostics", diagnostics.routes),
    Page("welcome", "Welcome", welcome.routes),  # opened at the first start on a desktop; in the nav after
)
