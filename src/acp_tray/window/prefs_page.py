"""The window's Preferences page: every setting as a form control, saved through the daemon in one
request a Save (`prefs.set` types the form's fields by the file's model, checks them, writes them with
the file's comments kept, applies them before "Saved" and answers the form to show); the push targets
come with the `watch` state; a change to the file made elsewhere is noticed (the `watch` stream's file
version) and offered; "Open the file" for those who prefer an editor."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from starlette.requests import Request
from starlette.responses import HTMLResponse, Response
from starlette.routing import Route
from starlette.templating import Jinja2Templates

from acp_tray.control import api
from acp_tray.desktop.edit_file import edit_file
from acp_tray.window import prefs_view, push_view
from acp_tray.window.actions import toast
from acp_tray.window.daemon_calls import CallFailedError, ask
from acp_tray.window.feed import Feed


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
        return self._fields(request, prefs_view.page(reply, push=push_view.listing(self._feed.state)), fresh=True)

    async def save(self, request: Request) -> Response:
        """One request: the daemon types the form's fields, checks, writes and answers the form to show."""
        form = await request.form()
        fields = {key: [str(value) for value in form.getlist(key)] for key in form}
        version = str(form.get("version", ""))  # the page's: the file as the page was made from it
        args = api.PrefsSetArgs(version=version or None, fields=fields, overwrite=form.get("overwrite") == "1")
        try:
            reply = await ask(api.PREFS_SET, args)
        except CallFailedError as exc:
            return toast(self._templates, request, str(exc), problem=True)
        push = push_view.listing(self._feed.state)
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
