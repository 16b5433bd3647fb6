"""The window's one renderer: a page (its template, with what every page shows: the nav, the live
stream's address, the daemon's latest state), a part of one for htmx to swap in, a status line; and
the parts every page's routes are built with."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol
from urllib.parse import urlencode

import anyio
from starlette.requests import Request
from starlette.responses import HTMLResponse
from starlette.templating import Jinja2Templates

from acp_tray.control import watch_events
from acp_tray.window import views
from acp_tray.window.feed import Feed


class Link(Protocol):
    """A page as the nav names it (window/pages/__init__.py declares them)."""

    @property
    def name(self) -> str: ...
    @property
    def title(self) -> str: ...
    @property
    def path(self) -> str: ...


def history_filters(params: Mapping[str, str]) -> dict[str, str]:
    """The history's filters as the address gives them (bounded; an unknown severity is none)."""
    severity = params.get("severity", "")
    return {
        "agent": params.get("agent", "")[:200],
        "severity": severity if severity in views.SEVERITY_CLASSES else "",
        "text": params.get("text", "")[:200],
    }


class Renderer:
    def __init__(self, templates: Jinja2Templates, feed: Feed, nav: Sequence[Link]) -> None:
        self._templates = templates
        self._feed = feed
        self._nav = tuple(nav)

    async def page(self, request: Request, name: str, template: str = "", **context: Any) -> HTMLResponse:
        """The page `name` (its template: NAME.html unless given), once the daemon's state is here;
        `context` over what every page shows."""
        await self._feed.ready.wait()
        filters = {k: v for k, v in history_filters(request.query_params).items() if v}
        live = {"page": name, **filters, "drawn": self._feed.version}  # its stream redraws only what came since
        title = next((link.title for link in self._nav if link.name == name), "acp-tray")
        common = {
            **views.overview(self._feed.state),
            "page": name,
            "page_title": title,
            "nav": self._nav,
            "events_url": "/events?" + urlencode(live),
            "highlight": "",
        }
        return self._templates.TemplateResponse(request, template or f"{name}.html", {**common, **context})

    async def failed_page(self, request: Request, problem: str) -> HTMLResponse:
        """A page that says only why what was asked for cannot be shown."""
        page = request.url.path.strip("/").split("/")[0]
        response = await self.page(request, page, "_failed_page.html", problem=problem)
        response.status_code = 503
        return response

    def html(self, request: Request, template: str, **context: Any) -> str:
        """A part of a page (a template whose name starts with _), as HTML."""
        return self._templates.get_template(template).render(request=request, **context)

    def part(
        self, request: Request, template: str, *, headers: Mapping[str, str] | None = None, **context: Any
    ) -> HTMLResponse:
        """A part of a page for htmx to swap in."""
        return HTMLResponse(self.html(request, template, **context), headers=headers)

    def toast(self, request: Request, text: str, *, problem: bool = False) -> HTMLResponse:
        """One line for the page's status area (a problem in its colour)."""
        return self.part(request, "_toast.html", text=text, problem=problem)


@dataclass(frozen=True)
class Parts:
    """What every page's routes are built with."""

    render: Renderer
    feed: Feed
    shutdown: anyio.Event  # set when the window ends: open event streams end with it

    async def state(self) -> watch_events.WatchState:
        """The daemon's latest state, once its first snapshot is here."""
        await self.feed.ready.wait()
        return self.feed.state
