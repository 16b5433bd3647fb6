"""The window's welcome page (`/welcome`): what acp-tray does, that it lives in the tray (and what to
do on a desktop without one), the Start on login switch (window/start_on_login.py's), the app-menu
entry it installed, and how to quit. The daemon opens it once, at its first start on a desktop."""

from __future__ import annotations

from typing import Any

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route
from starlette.templating import Jinja2Templates

from acp_tray.desktop.entry import APP, this_installation
from acp_tray.desktop.menu_entry import Launcher, has_launcher
from acp_tray.window import views
from acp_tray.window.feed import Feed
from acp_tray.window.start_on_login import start_on_login


def app_menu() -> dict[str, Any]:
    """The app-menu entry as the welcome names it: whether this OS has one, and whether it is installed."""
    menus = has_launcher()
    return {"has": menus, "name": APP, "installed": menus and Launcher(this_installation()).entry_file.exists()}


class WelcomePage:
    def __init__(self, feed: Feed, templates: Jinja2Templates) -> None:
        self._feed = feed
        self._templates = templates

    def routes(self) -> list[Route]:
        return [Route("/welcome", self.page)]

    async def page(self, request: Request) -> Response:
        await self._feed.ready.wait()
        context = {
            **views.overview(self._feed.state),
            "page": "welcome",
            "events_url": "/events?page=welcome",
            "highlight": "",
            "login": start_on_login(),
            "menu": app_menu(),
        }
        return self._templates.TemplateResponse(request, "welcome.html", context)
