"""The window's Preferences page: every setting as a form control, saved through the daemon
(`prefs.get` / `prefs.set`: checked by the file's model, written with the file's comments kept, applied
before "Saved"); a change to the file made elsewhere is noticed (the `watch` stream's file version) and
offered; "Open the file" for those who prefer an editor."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from starlette.requests import Request
from starlette.responses import HTMLResponse, Response
from starlette.routing import Route
from starlette.templating import Jinja2Templates

from acp_tray.control import api, errors
from acp_tray.desktop.edit_file import edit_file
from acp_tray.window import prefs_view
from acp_tray.window.actions import toast
from acp_tray.window.daemon_calls import CallFailedError, ask
from acp_tray.window.feed import Feed
from acp_tray.window.push_page import listed


class PrefsPage:
    def __init__(self, feed: Feed, templates: Jinja2Templates) -> None:
        self._feed = feed
        self._templates = templates

    def routes(self) -> list[Route]:
        return [
            Route("/preferences", self.save, methods=["POST"]),
            Route("/preferences/form", self.form),
            Route("/preferences/changed", self.changed),
            Route("/preferences/open", self.open_file, methods=["POST"]),
        ]

    def _fields(self, request: Request, context: dict[str, Any], *, fresh: bool = False) -> Response:
        html = self._templates.get_template("_prefs_fields.html").render(request=request, **context)
        if fresh:  # the file's values are shown now: no more "the file changed"
            html += '<div id="prefs-changed" hx-swap-oob="true"></div>'
        return HTMLResponse(html)

    async def form(self, request: Request) -> Response:
        """The form again with the file's values (after "the file changed": show them)."""
        try:
            reply = await ask(api.PREFS_GET, api.Args())
        except CallFailedError as exc:
            return toast(self._templates, request, str(exc), problem=True)
        return self._fields(request, prefs_view.page(reply, push=await listed()), fresh=True)

    async def save(self, request: Request) -> Response:
        form = await request.form()
        try:
            reply = await ask(api.PREFS_GET, api.Args())
        except CallFailedError as exc:
            return toast(self._templates, request, str(exc), problem=True)
        sent = prefs_view.changes(form, reply["values"])
        version = reply["version"] if form.get("overwrite") == "1" else str(form.get("version", ""))
        try:
            saved = await ask(api.PREFS_SET, api.PrefsSetArgs(version=version, changes=sent))
        except CallFailedError as exc:
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
        now = self._feed.state.get("preferences", "")
        if not now or request.query_params.get("version", "") == now:
            return HTMLResponse("")
        return HTMLResponse(self._templates.get_template("_prefs_changed.html").render(request=request))

    async def open_file(self, request: Request) -> Response:
        try:
            path = (await ask(api.PREFS_GET, api.Args()))["path"]
        except CallFailedError as exc:
            return toast(self._templates, request, str(exc), problem=True)
        if path is None:
            return toast(
                self._templates, request, "acp-tray runs on its built-in settings: there is no file.", problem=True
            )
        problem = await asyncio.to_thread(edit_file, Path(path))
        if problem is not None:
            return toast(self._templates, request, problem, problem=True)
        return toast(
            self._templates, request, f"Opened {path}. Once you save it there, this page offers its new values."
        )
