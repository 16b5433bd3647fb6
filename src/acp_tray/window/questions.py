"""A question answered from the window (POST, from htmx): the form's values as typed (the daemon
checks them against the agent's schema and says what does not fit), Decline, or Open for a page;
and a page's whole address, shown when the person asks for it."""

from __future__ import annotations

import html

from starlette.datastructures import FormData
from starlette.requests import Request
from starlette.responses import HTMLResponse, Response

from acp_tray.control import api, replies
from acp_tray.window.daemon_calls import ask
from acp_tray.window.feed import Feed
from acp_tray.window.render import Renderer

DONE = {"answered": "Answer sent.", "declined": "Declined.", "cancelled": "Cancelled."}


class QuestionAnswers:
    def __init__(self, feed: Feed, render: Renderer) -> None:
        self._feed = feed
        self._render = render

    def _fields(self, question_id: str) -> list[replies.FieldRow]:
        rows = self._feed.state.get("questions", [])
        return next((q["fields"] for q in rows if q["id"] == question_id), [])

    def _values(self, question_id: str, form: FormData) -> dict[str, str | list[str]]:
        """The form's values by field, as typed: a checkbox ticked or not, the choices ticked."""
        values: dict[str, str | list[str]] = {}
        for f in self._fields(question_id):
            given = [str(v) for v in form.getlist(f["name"])]
            if f["kind"] == "boolean":
                values[f["name"]] = "true" if "true" in given else "false"
            elif f["kind"] == "array":
                if given:
                    values[f["name"]] = given
            elif given:
                values[f["name"]] = given[0]
        return values

    async def answer(self, request: Request) -> Response:
        question_id = request.path_params["id"]
        form = await request.form()
        action = str(form.get("action") or "accept")
        if action == "open":
            await ask(api.ANSWER, api.AnswerArgs(question_id, action="open"))
            return self._render.toast(request, "Opened in your browser.")
        if action == "decline":
            reply = await ask(api.ANSWER, api.AnswerArgs(question_id, action="decline"))
            return self._render.toast(request, DONE[reply["outcome"]])
        reply = await ask(api.ANSWER, api.AnswerArgs(question_id, self._values(question_id, form)))
        return self._render.toast(request, DONE[reply["outcome"]])

    async def address(self, request: Request) -> Response:
        """The page's whole address, as text (it may carry a code: shown only when asked for)."""
        question_id = request.path_params["id"]
        rows = await ask(api.QUESTIONS, api.Args())
        url = next((q["url"] for q in rows if q["id"] == question_id), "")
        return HTMLResponse(f"<code>{html.escape(url or '(no longer waiting)')}</code>")
