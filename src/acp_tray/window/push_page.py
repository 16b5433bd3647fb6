"""The Preferences page's push targets: add one (its Apprise URL, typed in a password field, goes to
the daemon's `push.add` and never comes back to the page), send one a test, remove one (asked
first). Each answer is the targets' part again, or a line beside the target. An add the OS keyring
holds (its dialog is open) is answered at once with the daemon's words for the wait; the part asks
again (`/push/adding/KEY`) and gets the targets once the keyring has answered."""

from __future__ import annotations

import asyncio
import secrets

from starlette.requests import Request
from starlette.responses import Response

from acp_tray.control import api, replies
from acp_tray.logs.redact import redact, remember_secrets
from acp_tray.window import push_view
from acp_tray.window.daemon_calls import CallFailedError, ask
from acp_tray.window.render import Renderer

NO_URL = "Paste the target's Apprise URL (like ntfy://ntfy.sh/TOPIC or json://host/path): nothing was added."


async def listed() -> push_view.Listing:
    """The daemon's push targets, or why they cannot be shown."""
    try:
        return push_view.Listing(rows=await ask(api.PUSH_LIST, api.Args()))
    except CallFailedError as exc:
        return push_view.Listing(problem=str(exc))


async def _chosen() -> list[str]:
    """`[push] targets` as the file says it."""
    try:
        return push_view.chosen((await ask(api.PREFS_GET, api.Args()))["values"])
    except CallFailedError:
        return []


class PushPage:
    def __init__(self, render: Renderer) -> None:
        self._render = render
        self._adding: dict[str, tuple[str, asyncio.Future[replies.PushTargetRow]]] = {}  # held by the keyring

    async def _part(self, request: Request, **said: str) -> Response:
        context = push_view.part(await listed(), await _chosen(), **said)
        return self._render.part(request, "_push_targets.html", **context)

    async def targets(self, request: Request) -> Response:
        return await self._part(request)

    async def add(self, request: Request) -> Response:
        from acp_tray.push.targets import push_url_secrets, target_name_problem  # the push code: when one is added

        form = await request.form()
        name, url = str(form.get("name", "")).strip(), str(form.get("url", ""))
        problem, invalid = target_name_problem(name), "name"
        if problem is not None:
            problem = problem[0].upper() + problem[1:] + "."
        elif not url.strip():
            problem, invalid = NO_URL, "url"
        else:
            remember_secrets(push_url_secrets(url.strip()))  # masked wherever this process shows or logs it
            return await self._add(request, name, url)
        return await self._part(request, problem=problem, invalid=invalid, name=name)

    async def _add(self, request: Request, name: str, url: str) -> Response:
        """`push.add`'s answer; or, while the keyring holds it, the daemon's words for that wait."""
        said: list[str] = []
        spoke = asyncio.Event()

        def waiting(text: str) -> None:
            said.append(text)
            spoke.set()

        adding = asyncio.ensure_future(ask(api.PUSH_ADD, api.PushAddArgs(name=name, url=url), on_wait=waiting))
        heard = asyncio.ensure_future(spoke.wait())
        await asyncio.wait({adding, heard}, return_when=asyncio.FIRST_COMPLETED)
        heard.cancel()
        if adding.done():
            return await self._added(request, name, adding)
        adding.add_done_callback(_heard)  # its outcome is read even should no page ask for it
        key = secrets.token_urlsafe(16)
        self._adding[key] = (name, adding)
        return await self._part(request, waiting=said[0], adding=key)

    async def adding(self, request: Request) -> Response:
        """The targets once the add the keyring held is done (at once for one unknown here)."""
        name, adding = self._adding.pop(request.path_params["key"], ("", None))
        if adding is None:
            return await self._part(request)
        await asyncio.wait({adding})  # a page that went away meanwhile does not cancel the add
        return await self._added(request, name, adding)

    async def _added(self, request: Request, name: str, adding: asyncio.Future[replies.PushTargetRow]) -> Response:
        try:
            row = adding.result()
        except CallFailedError as exc:  # should the daemon's error quote the URL
            return await self._part(request, problem=redact(str(exc)), invalid="url", name=name)
        service = push_view.SERVICES.get(row["service"], row["service"])
        notice = f"{name} added ({service}); its URL is kept in the OS keyring. Send a test to see it arrive."
        return await self._part(request, notice=notice)

    async def test(self, request: Request) -> Response:
        name = request.path_params["name"]

        def unsent(message: str) -> Response:
            return self._render.part(request, "_push_said.html", text=message, accepted=False)

        reply = await ask(api.PUSH_TEST, api.PushTestArgs(name=name), answer=unsent)
        text = f"Sent: {reply['detail']}."
        return self._render.part(request, "_push_said.html", text=text, accepted=reply["accepted"])

    async def confirm_remove(self, request: Request) -> Response:
        return self._render.part(request, "_push_remove_confirm.html", name=request.path_params["name"])

    async def remove(self, request: Request) -> Response:
        name = request.path_params["name"]
        await ask(
            api.PUSH_REMOVE, api.PushNameArgs(name=name), answer=lambda message: self._part(request, problem=message)
        )
        return await self._part(request, notice=f"{name} removed; its URL is deleted from the OS keyring.")


def _heard(done: asyncio.Future[replies.PushTargetRow]) -> None:
    if not done.cancelled():
        done.exception()
