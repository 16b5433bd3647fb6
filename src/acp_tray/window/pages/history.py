"""The History page: what acp-tray was told, newest first, filtered by agent, severity and words,
a page at a time (older ones by "before"); new rows arrive through the live stream (window/live.py)."""

from __future__ import annotations

from typing import Any

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from acp_tray.control import api, errors
from acp_tray.local_time import now
from acp_tray.window import views
from acp_tray.window.daemon_calls import ask
from acp_tray.window.render import Parts, history_filters

HISTORY_PAGE = 50


def routes(parts: Parts) -> list[Route]:
    async def page(request: Request) -> Response:
        filters = history_filters(request.query_params)
        state = await parts.state()
        shown: dict[str, Any] = {
            "filters": filters,
            "severities": views.SEVERITY_CLASSES,
            "agent_names": [row["name"] for row in state.get("agents", [])],
        }

        async def failed(message: str) -> Response:
            return await parts.render.page(request, "history", error=message, rows=[], next=None, **shown)

        before = request.query_params.get("before")
        raw = {
            "agent": filters["agent"] or None,
            "severity": filters["severity"] or None,
            "text": filters["text"] or None,
            "before": int(before) if before and before.isdigit() else None,
            "limit": HISTORY_PAGE,
        }
        try:
            args = api.HISTORY.parse(raw)
        except errors.ArgumentError as exc:
            return await failed(str(exc))
        found = await ask(api.HISTORY, args, answer=failed)
        at = now()
        rows = [row for record in found["records"] if (row := views.history_row(record, at)) is not None]
        highlight = request.query_params.get("highlight", "")
        return await parts.render.page(
            request, "history", rows=rows, next=found["next"], error="", highlight=highlight, **shown
        )

    return [Route("/history", page)]
