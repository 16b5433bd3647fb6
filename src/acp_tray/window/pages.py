"""The window's pages (GET) and their live event stream: overview, agents, sessions, history, diagnostics.
Each page is rendered from the daemon's latest state; `/events` then sends each part again as it
changes, as HTML fragments that htmx swaps in (its SSE extension)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any
from urllib.parse import urlencode

import anyio
from sse_starlette import EventSourceResponse, ServerSentEvent
from starlette.requests import Request
from starlette.responses import HTMLResponse, Response
from starlette.templating import Jinja2Templates

from acp_tray.control import api, errors
from acp_tray.events import now
from acp_tray.window import custom_agent, prefs_view, push_view, sessions_page, views
from acp_tray.window.daemon_calls import CallFailedError, ask
from acp_tray.window.feed import Feed
from acp_tray.window.start_on_login import start_on_login

PARTS = ("agents", "approvals", "dnd", "unread", "sessions", "preferences")  # preferences: the file's version
# a part drawn from more than its own key
SHOWS = {"dnd": ("dnd", "morning"), "approvals": ("approvals", "questions"), "sessions": ("sessions", "today")}
HISTORY_PAGE = 50


class Pages:
    def __init__(self, feed: Feed, templates: Jinja2Templates, shutdown: anyio.Event) -> None:
        self._feed = feed
        self._templates = templates
        self._shutdown = shutdown

    def _render(self, request: Request, name: str, **context: Any) -> HTMLResponse:
        filters = _filters(request)
        live = {"page": context["page"], **{k: v for k, v in filters.items() if v}}
        context = {"events_url": "/events?" + urlencode(live), "highlight": "", **context}
        return self._templates.TemplateResponse(request, name, context)

    async def overview(self, request: Request) -> Response:
        await self._feed.ready.wait()
        return self._render(request, "overview.html", page="overview", **views.overview(self._feed.state))

    async def agents(self, request: Request) -> Response:
        await self._feed.ready.wait()
        context = {**views.overview(self._feed.state), **custom_agent.form({}, {})}
        return self._render(request, "agents.html", page="agents", **context)

    async def sessions(self, request: Request) -> Response:
        await self._feed.ready.wait()
        state = self._feed.state
        context = {**views.overview(state), **sessions_page.form(state, request.query_params)}
        return self._render(request, "sessions.html", page="sessions", **context)

    async def preferences(self, request: Request) -> Response:
        """Start on login, then every setting as a form (window/prefs_page.py saves it)."""
        await self._feed.ready.wait()
        context: dict[str, Any] = {**views.overview(self._feed.state), "login": start_on_login(), "unavailable": ""}
        try:
            context |= prefs_view.page(await ask(api.PREFS_GET, api.Args()), push=push_view.listing(self._feed.state))
        except CallFailedError as exc:
            context["unavailable"] = str(exc)
        return self._render(request, "preferences.html", page="preferences", **context)

    async def history(self, request: Request) -> Response:
        await self._feed.ready.wait()
        filters = _filters(request)
        before = request.query_params.get("before")
        raw = {
            "agent": filters["agent"] or None,
            "severity": filters["severity"] or None,
            "text": filters["text"] or None,
            "before": int(before) if before and before.isdigit() else None,
            "limit": HISTORY_PAGE,
        }
        try:
            page = await ask(api.HISTORY, api.HISTORY.parse(raw))
        except (errors.ArgumentError, CallFailedError) as exc:
            context = _base(self._feed, filters)
            return self._render(request, "history.html", page="history", error=str(exc), rows=[], next=None, **context)
        at = now()
        rows = [row for record in page["records"] if (row := views.history_row(record, at)) is not None]
        return self._render(
            request,
            "history.html",
            page="history",
            rows=rows,
            next=page["next"],
            error="",
            highlight=request.query_params.get("highlight", ""),
            **_base(self._feed, filters),
        )

    async def diagnostics(self, request: Request) -> Response:
        """`acp-tray doctor`'s checks, run by the daemon (it knows its tray backend), with their fixes."""
        await self._feed.ready.wait()
        try:
            checks, error = views.checks(await ask(api.DIAGNOSTICS, api.Args())), ""
        except CallFailedError as exc:
            checks, error = [], str(exc)
        context = views.overview(self._feed.state)
        return self._render(request, "diagnostics.html", page="diagnostics", checks=checks, error=error, **context)

    async def events(self, request: Request) -> Response:
        return EventSourceResponse(self._stream(request), ping=15, shutdown_event=self._shutdown)

    async def _stream(self, request: Request) -> AsyncIterator[ServerSentEvent]:
        filters = _filters(request)
        with self._feed.follow() as queue:
            await self._feed.ready.wait()
            for event in self._parts(request, PARTS):
                yield event
            while True:
                message = await queue.get()
                kind = message.get("event")
                if kind == "history":
                    record = message.get("record") or {}
                    if views.matches(record, filters["agent"], filters["severity"], filters["text"]):
                        row = views.history_row(record, now())
                        yield self._fragment(request, "history", "_history_rows.html", rows=[row], highlight="")
                    continue
                changed = (
                    PARTS if kind == "snapshot" else tuple(p for p in PARTS if set(SHOWS.get(p, (p,))) & set(message))
                )
                for event in self._parts(request, changed):
                    yield event

    def _parts(self, request: Request, names: tuple[str, ...]) -> list[ServerSentEvent]:
        context = views.overview(self._feed.state)
        return [self._fragment(request, name, f"_{name}.html", **context) for name in names]

    def _fragment(self, request: Request, event: str, template: str, **context: Any) -> ServerSentEvent:
        html = self._templates.get_template(template).render(request=request, **context)
        return ServerSentEvent(data=html, event=event)


def _filters(request: Request) -> dict[str, str]:
    params = request.query_params
    severity = params.get("severity", "")
    return {
        "agent": params.get("agent", "")[:200],
        "severity": severity if severity in views.SEVERITY_CLASSES else "",
        "text": params.get("text", "")[:200],
    }


def _base(feed: Feed, filters: dict[str, str]) -> dict[str, Any]:
    return {
        **views.overview(feed.state),
        "filters": filters,
        "severities": views.SEVERITY_CLASSES,
        "agent_names": [row["name"] for row in feed.state.get("agents", [])],
    }
