"""The window's Preferences page: start on login, then every setting as a form control, saved through
the daemon in one request a Save (`prefs.set` types the form's fields by the file's model, checks them,
writes them with the file's comments kept, applies them before "Saved" and answers the form to show); the
push targets come with the `watch` state; a change to the file made elsewhere is noticed (the `watch`
stream's file version) and offered; "Open the file" for those who prefer an editor; the push targets'
part (window/push_page.py)."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable
from pathlib import Path
from typing import Any

from starlette.requests import Request
from starlette.responses import HTMLResponse, Response
from starlette.routing import Route

from acp_tray.control import api
from acp_tray.desktop.edit_file import edit_file
from acp_tray.window import prefs_view, push_view
from acp_tray.window.daemon_calls import ask
from acp_tray.window.push_page import PushPage
from acp_tray.window.render import Parts
from acp_tray.window.start_on_login import StartOnLogin, start_on_login


class PrefsPage:
    def __init__(self, parts: Parts) -> None:
        self._parts = parts
        self._render = parts.render

    async def page(self, request: Request) -> Response:
        """Start on login, then every setting as a form (or why the settings cannot be shown)."""

        def unavailable(message: str) -> Awaitable[Response]:
            return self._render.page(request, "preferences", login=start_on_login(), unavailable=message)

        reply = await ask(api.PREFS_GET, api.Args(), answer=unavailable)
        context = prefs_view.page(reply, push=await self._push())
        return await self._render.page(request, "preferences", login=start_on_login(), unavailable="", **context)

    async def _push(self) -> push_view.Listing:
        """The push targets as the daemon's `watch` state holds them (no request of their own)."""
        return push_view.listing(await self._parts.state())

    def _fields(self, request: Request, context: dict[str, Any], *, fresh: bool = False) -> Response:
        html = self._render.html(request, "_prefs_fields.html", **context)
        if fresh:  # the file's values are shown now: no more "the file changed"
            html += '<div id="prefs-changed" hx-swap-oob="true"></div>'
        return HTMLResponse(html)

    async def form(self, request: Request) -> Response:
        """The form again with the file's values (after "the file changed": show them)."""
        reply = await ask(api.PREFS_GET, api.Args())
        return self._fields(request, prefs_view.page(reply, push=await self._push()), fresh=True)

    async def save(self, request: Request) -> Response:
        """One request: the daemon types the form's fields, checks, writes and answers the form to show."""
        form = await request.form()
        fields = {key: [str(value) for value in form.getlist(key)] for key in form}
        version = str(form.get("version", ""))  # the page's: the file as the page was made from it
        args = api.PrefsSetArgs(version=version or None, fields=fields, overwrite=form.get("overwrite") == "1")
        reply = await ask(api.PREFS_SET, args)
        push = await self._push()
        if reply["saved"]:
            words = "Saved." if reply["changed"] else "Nothing to save: the file already says all this."
            return self._fields(request, prefs_view.page(reply["form"], saved=words, push=push), fresh=True)
        stale, failed = reply["stale"], reply["failed"]
        context = prefs_view.page(
            reply["form"], reply["sent"], reply["problems"], stale=stale, failed=failed, push=push
        )
        context["version"] = version  # still the one the page was made from
        return self._fields(request, context)

    async def changed(self, request: Request) -> Response:
        """Whether the file changed since the page's version (asked each time the daemon's changes
        carry a new one): a note offering the file's values, or nothing."""
        now = self._parts.feed.state.get("preferences", "")
        if not now or request.query_params.get("version", "") == now:
            return HTMLResponse("")
        return self._render.part(request, "_prefs_changed.html")

    async def open_file(self, request: Request) -> Response:
        path = (await ask(api.PREFS_GET, api.Args()))["path"]
        if path is None:
            return self._render.toast(
                request, "acp-tray runs on its built-in settings: there is no file.", problem=True
            )
        problem = await asyncio.to_thread(edit_file, Path(path))
        if problem is not None:
            return self._render.toast(request, problem, problem=True)
        return self._render.toast(request, f"Opened {path}. Once you save it there, this page offers its new values.")


def routes(parts: Parts) -> list[Route]:
    page, push, login = PrefsPage(parts), PushPage(parts.render), StartOnLogin(parts.render)
    return [
        Route("/preferences", page.page),
        Route("/preferences", page.save, methods=["POST"]),
        Route("/preferences/form", page.form),
        Route("/preferences/changed", page.changed),
        Route("/preferences/open", page.open_file, methods=["POST"]),
        Route("/start-on-login", login.switch, methods=["POST"]),
        Route("/push", push.targets),
        Route("/push/targets", push.add, methods=["POST"]),
        Route("/push/waiting/{key}", push.waited),
        Route("/push/{name}/test", push.test, methods=["POST"]),
        Route("/push/{name}/remove", push.confirm_remove),
        Route("/push/{name}/remove", push.remove, methods=["POST"]),
    ]
