"""The window's one answer to a request to the daemon that failed (CallFailedError, from any page's
route): in the page's own words when it gave them; else, for an htmx request or a change, a problem
in the page's status line, and for a page opened in the browser, a page that says why."""

from __future__ import annotations

import inspect

from starlette.requests import Request
from starlette.responses import Response

from acp_tray.window.daemon_calls import CallFailedError
from acp_tray.window.render import Renderer


class FailedCalls:
    def __init__(self, render: Renderer) -> None:
        self._render = render

    async def answer(self, request: Request, exc: Exception) -> Response:
        """Starlette's handler for CallFailedError (registered once, on the app)."""
        if not isinstance(exc, CallFailedError):  # registered for it alone
            raise exc
        message = str(exc)
        if exc.answer is not None:
            said = exc.answer(message)
            return await said if inspect.isawaitable(said) else said
        if request.method == "POST" or request.headers.get("hx-request") == "true":
            return self._render.toast(request, message, problem=True)
        return await self._render.failed_page(request, message)
