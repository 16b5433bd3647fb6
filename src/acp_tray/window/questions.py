"""A question answered from the window (POST, from htmx): the form's values as typed (the daemon
checks them against the agent's schema and says what does not fit), Decline, or Open for a page;
and a page's whole address, shown when the person asks for it."""

from __future__ import annotations

from starlette.datastructures import FormData
from starlette.requests import Request
from starlette.responses import HTMLResponse, Response
from starlette.routing import Route
from starlette.templating import Jinja2Templates

from acp_tray.control import api, replies
from acp_tray.window.actions import toast
from acp_tray.window.daemon_calls import CallFailedError, ask
from acp_tray.window.feed import Feed

DONE = {"answered": "Answer sent.", "declined": "Declined.", "cancelled": "Cancelled."}


class QuestionAnswers:
    def __init__(self, feed: Feed, templates: Jinja2Templates) -> None:
        self._feed = feed
        self._templates = templates

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
        try:
            if action == "open":
                await ask(api.ANSWER, api.AnswerArgs(question_id, action="open"))
                return toast(self._templates, request, "Opened in your browser.")
            if action == "decline":
                reply = await ask(api.ANSWER, api.AnswerArgs(question_id, action="decline"))
                return toast(self._templates, request, DONE[reply["outcome"]])
            reply = await ask(api.ANSWER, api.AnswerArgs(question_id, self._values(question_id, form)))
        except CallFailedError as exc:
            return toast(self._templates, request, str(exc), problem=True)
        return toast(self._templates, request, DONE[reply["outcome"]])

    async def address(self, request: Request) -> Response:
        """The page's whole address, as text (it may carry a code: shown only when asked for)."""
        question_id = request.path_params["id"]
        try:
            rows = await ask(api.QUESTIONS, api.Args())
        except CallFailedError as exc:
            return toast(self._templates, request, str(exc), problem=True)
        url = next((q["url"] for q in rows if q["id"] == question_id), "")
        html = self._templates.env.from_string("<code>{{ url }}</code>").render(url=url or "(no longer waiting)")
        return HTMLResponse(html)


def question_routes(feed: Feed, templates: Jinja2Templates) -> list[Route]:
    answers = QuestionAnswers(feed, templates)
    return [
        Route("/questions/{id}", answers.answer, methods=["POST"]),
        Route("/questions/{id}/address", answers.address),
    ]
