"""What a person does from the window (POST, from htmx): an agent's restart, stop and start, an
approval's answer, do not disturb, mark all read. Each is one control-API op; the answer is a
short line for the page's status area (the change itself arrives through the event stream). A
failed op is said there too, by the window's one answer to a failed call (window/failed_calls.py)."""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import Response

from acp_tray.control import api, errors
from acp_tray.window.daemon_calls import ask, one_line
from acp_tray.window.render import Renderer


class Actions:
    def __init__(self, render: Renderer) -> None:
        self._render = render

    async def agent(self, request: Request) -> Response:
        name, verb = request.path_params["name"], request.path_params["verb"]
        if verb not in api.AGENT_VERBS:
            return self._render.toast(request, f"Unknown action {verb!r}.", problem=True)
        op, done = api.AGENT_VERBS[verb]
        await ask(op, api.NameArgs(name=name))
        return self._render.toast(request, f"{name}: {done}.")

    async def approval(self, request: Request) -> Response:
        form = await request.form()
        option = form.get("option")
        approval = request.path_params["id"]
        if form.get("deny") == "1":
            await ask(api.DENY, api.DenyArgs(id=approval))
            return self._render.toast(request, "Rejected.")
        reply = await ask(api.APPROVE, api.ApproveArgs(id=approval, option=str(option) if option else None))
        return self._render.toast(request, f"Answered: {reply['name'] or reply['kind']}.")

    async def dnd(self, request: Request) -> Response:
        form = await request.form()
        raw = {"mode": str(form.get("mode", "")), "value": str(form.get("value", "")) or None}
        try:
            args = api.DND_SET.parse(raw)  # checked as the daemon checks it
        except errors.ArgumentError:
            return self._render.toast(request, "Choose how long do not disturb should last.", problem=True)
        reply = await ask(api.DND_SET, args)
        return self._render.toast(request, f"Do not disturb: {one_line(reply)}.")

    async def read(self, request: Request) -> Response:
        await ask(api.READ, api.Args())
        return self._render.toast(request, "All marked read.")
