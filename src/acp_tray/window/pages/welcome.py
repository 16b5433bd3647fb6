"""The window's welcome page (`/welcome`): what acp-tray does, that it lives in the tray (and what to
do on a desktop without one), the Start on login switch (window/start_on_login.py's), the app-menu
entry it installed, and how to quit. The daemon opens it once, at its first start on a desktop."""

from __future__ import annotations

from typing import Any

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from acp_tray.window.render import Parts


def app_menu() -> dict[str, Any]:
    """The app-menu entry as the welcome names it: whether this OS has one, and whether it is installed
    (the launcher's code is imported when the welcome is shown, not when the window starts)."""
    from acp_tray.desktop.entry import APP, this_installation
    from acp_tray.desktop.menu_entry import Launcher, has_launcher

    menus = has_launcher()
    return {"has": menus, "name": APP, "installed": menus and Launcher(this_installation()).entry_file.exists()}


def routes(parts: Parts) -> list[Route]:
    async def page(request: Request) -> Response:
        from acp_tray.window.start_on_login import start_on_login

        return await parts.render.page(request, "welcome", login=start_on_login(), menu=app_menu())

    return [Route("/welcome", page)]
