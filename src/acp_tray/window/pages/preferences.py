"""The window's Preferences page: start on login, then every setting as a form control, saved through
the daemon (`prefs.get` / `prefs.set`: checked by the file's model, written with the file's comments kept,
applied before "Saved"); a change to the file made elsewhere is noticed (the `watch` stream's file version)
and offered; "Open the file" for those who prefer an editor; the push targets' part (window/push_page.py)."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable
from pathlib import Path
from typing import Any

from starlette.requests import Request
from starlette.responses import HTMLResponse, Response
from starlette.routing import Route

from acp_tray.control import api, errors
from acp_tray.desktop.edit_file import edit_file
from acp_tray.window import prefs_view
from acp_tray.window.daemon_calls import CallFailedError, ask
from acp_tray.window.push_page import PushPage, listed
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
        context = prefs_view.page(reply, push=await listed())
        return await self._render.page(request, "preferences", login=start_on_login(), unavailable="", **context)

    def _fields(self, request: Request, context: dict[str, Any], *, fresh: bool = False) -> Response:
        html = self._render.html(request, "_prefs_fields.html", **context)
        if fresh:  # the file's values are shown now: no more "the file changed"
            html += '<div id="prefs-changed" hx-swap-oob="true"></div>'
        return HTMLResponse(html)

    async def form(self, request: Request) -> Response:
        """The form again with the file's values (after "the file changed": show them)."""
        reply = await ask(api.PREFS_GET, api.Args())
        return self._fields(request, prefs_view.page(reply, push=await listed()), fresh=True)

    async def save(self, request: Request) -> Response:
        form = await request.form()
        reply = await ask(api.PREFS_GET, api.Args())
        sent = prefs_view.changes(form, reply["values"])
        version = reply["version"] if form.get("overwrite") == "1" else str(form.get("version", ""))
        try:
            saved = await ask(api.PREFS_SET, api.PrefsSetArgs(version=version, changes=sent))
        except CallFailedError as exc:  # the form again, saying why: the file changed meanwhile, or the daemon's words
            stale = exc.code == errors.ErrorCode.CHANGED
            context = prefs_view.page(reply, sent, stale=stale, failed="" if stale else str(exc), push=await listed())
            context["version"] = str(form.get("version", ""))  # still the one the page was made from
            return self._fields(request, context)
        if not saved["saved"]:
            context = prefs_view.page(reply, sent, saved["problems"], push=await listed())
            context["version"] = str(form.get("version", ""))
            return self._fields(request, context)
        words = "Saved." if saved["changed"] else "Nothing to save: the file already says all this."
        context = prefs_view.page(await ask(api.PREFS_GET, api.Args()), saved=words, push=await listed())
        return self._fields(request, context, fresh=True)

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
        Route("/push/adding/{key}", push.adding),
        Route("/push/{name}/test", push.test, methods=["POST"]),
        Route("/push/{name}/remove", push.confirm_remove),
        Route("/push/{name}/remove", push.remove, methods=["POST"]),
    ]
