"""The Diagnostics page: `acp-tray doctor`'s checks, run by the daemon (it knows its tray backend),
each with its fix."""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from acp_tray.control import api
from acp_tray.window import views
from acp_tray.window.daemon_calls import ask
from acp_tray.window.render import Parts


def routes(parts: Parts) -> list[Route]:
    async def page(request: Request) -> Response:
        async def failed(message: str) -> Response:
            return await parts.render.page(request, "diagnostics", checks=[], error=message)

        checks = views.checks(await ask(api.DIAGNOSTICS, api.Args(), answer=failed))
        return await parts.render.page(request, "diagnostics", checks=checks, error="")

    return [Route("/diagnostics", page)]
