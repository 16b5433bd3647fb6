"""What a person does from the window (POST, from htmx): an agent's restart, stop and start, an
approval's answer, do not disturb, mark all read. Each is one control-API op; the answer is a
short line for the page's status area (the change itself arrives through the event stream)."""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import HTMLResponse, Response
from starlette.templating import Jinja2Templates

from acp_tray.control import api, errors
from acp_tray.window.daemon_calls import CallFailedError, ask, one_line


def toast(templates: Jinja2Templates, request: Request, text: str, *, problem: bool = False) -> Response:
    """The answer to an action: one line for the page's status area (a problem in its colour)."""
    return HTMLResponse(templates.get_template("_toast.html").render(request=request, text=text, problem=problem))


class Actions:
    def __init__(self, templates: Jinja2Templates) -> None:
        self._templates = templates

    def _say(self, request: Request, text: str, *, problem: bool = False) -> Response:
        return toast(self._templates, request, text, problem=problem)

    async def agent(self, request: Request) -> Response:
        name, verb = request.path_params["name"], request.path_params["verb"]
        if verb not in api.AGENT_VERBS:
            return self._say(request, f"Unknown action {verb!r}.", problem=True)
        op, done = api.AGENT_VERBS[verb]
        try:
            await ask(op, api.NameArgs(name=name))
        except CallFailedError as exc:
            return self._say(request, str(exc), problem=True)
        return self._say(request, f"{name}: {done}.")

    async def approval(self, request: Request) -> Response:
        form = await request.form()
        option = form.get("option")
        approval = request.path_params["id"]
        try:
            if form.get("deny") == "1":
                await ask(api.DENY, api.DenyArgs(id=approval))
                return self._say(request, "Rejected.")
            reply = await ask(api.APPROVE, api.ApproveArgs(id=approval, option=str(option) if option else None))
        except CallFailedError as exc:
            return self._say(request, str(exc), problem=True)
        return self._say(request, f"Answered: {reply['name'] or reply['kind']}.")

    async def dnd(self, request: Request) -> Response:
        form = await request.form()
        raw = {"mode": str(form.get("mode", "")), "value": str(form.get("value", "")) or None}
        try:
            reply = await ask(api.DND_SET, api.DND_SET.parse(raw))  # checked as the daemon checks it
        except errors.ArgumentError:
            return self._say(request, "Choose how long do not disturb should last.", problem=True)
        except CallFailedError as exc:
            return self._say(request, str(exc), problem=True)
        return self._say(request, f"Do not disturb: {one_line(reply)}.")

    async def read(self, request: Request) -> Response:
        try:
            await ask(api.READ, api.Args())
        except CallFailedError as exc:
            return self._say(request, str(exc), problem=True)
        return self._say(request, "All marked read.")
