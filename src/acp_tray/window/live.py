"""The pages' live event stream (`/events`): each part of a page sent again as it changes, as HTML
fragments that htmx swaps in (its SSE extension), each new history row that fits the page's filters,
and whether acp-tray is running."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

from sse_starlette import EventSourceResponse, ServerSentEvent
from starlette.requests import Request
from starlette.responses import Response

from acp_tray.control import watch_events
from acp_tray.local_time import now
from acp_tray.window import views
from acp_tray.window.feed import Down
from acp_tray.window.render import Parts, history_filters

PARTS = ("agents", "approvals", "dnd", "unread", "sessions", "preferences")  # preferences: the file's version
# a part drawn from more than its own key
SHOWS = {"dnd": ("dnd", "morning"), "approvals": ("approvals", "questions"), "sessions": ("sessions", "today")}


class Live:
    def __init__(self, parts: Parts) -> None:
        self._parts = parts

    async def events(self, request: Request) -> Response:
        return EventSourceResponse(self._stream(request), ping=15, shutdown_event=self._parts.shutdown)

    async def _stream(self, request: Request) -> AsyncIterator[ServerSentEvent]:
        filters = history_filters(request.query_params)
        with self._parts.feed.follow() as queue:
            await self._parts.state()
            yield self._daemon(request)
            if request.query_params.get("drawn") != self._parts.feed.version:  # changed since the page was drawn
                for event in self._changed(request, PARTS):
                    yield event
            while True:
                match await queue.get():
                    case Down():  # stopped: the banner
                        yield self._daemon(request)
                        continue
                    case watch_events.HistoryAdded(record):
                        if views.matches(record, filters["agent"], filters["severity"], filters["text"]):
                            row = views.history_row(record, now())
                            yield self._fragment(request, "history", "_history_rows.html", rows=[row], highlight="")
                        continue
                    case watch_events.Snapshot():  # running (again): the banner gone, every part drawn again
                        yield self._daemon(request)
                        changed: tuple[str, ...] = PARTS
                    case watch_events.Changes(state):
                        changed = tuple(p for p in PARTS if set(SHOWS.get(p, (p,))) & set(state))
                for event in self._changed(request, changed):
                    yield event

    def _daemon(self, request: Request) -> ServerSentEvent:
        """Whether the daemon runs: the banner the page shows while it does not (its script then
        disables the page's buttons), or nothing shown."""
        return self._fragment(request, "daemon", "_daemon.html", down=self._parts.feed.down)

    def _changed(self, request: Request, names: tuple[str, ...]) -> list[ServerSentEvent]:
        context = views.overview(self._parts.feed.state)
        return [self._fragment(request, name, f"_{name}.html", **context) for name in names]

    def _fragment(self, request: Request, event: str, template: str, **context: Any) -> ServerSentEvent:
        return ServerSentEvent(data=self._parts.render.html(request, template, **context), event=event)
