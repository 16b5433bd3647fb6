"""The Preferences page's push targets: add one (its Apprise URL, typed in a password field, goes to
the daemon's `push.add` and never comes back to the page), send one a test, remove one (asked
first). Each answer is the targets' part again, or a line beside the target. An add or a removal the
OS keyring holds (its dialog is open) is answered at once with the daemon's words for the wait; the
part asks again (`/push/waiting/KEY`) and gets the targets once the keyring has answered."""

from __future__ import annotations

import asyncio
import secrets
from collections.abc import Awaitable, Callable
from typing import TypeVar

from starlette.requests import Request
from starlette.responses import Response

from acp_tray.control import api, replies
from acp_tray.logs.redact import redact, remember_secrets
from acp_tray.window import push_view
from acp_tray.window.daemon_calls import CallFailedError, Waited, ask
from acp_tray.window.render import Renderer

T = TypeVar("T")
Later = Callable[[Request], Awaitable[Response]]  # the part's answer once a call the keyring held is done

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
        self._waiting: dict[str, Later] = {}  # calls the keyring holds, by the key the part asks again with

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
            return await self._held(
                request,
                lambda said: ask(api.PUSH_ADD, api.PushAddArgs(name=name, url=url), on_wait=said),
                lambda later, done: self._added(later, name, done),
            )
        return await self._part(request, problem=problem, invalid=invalid, name=name)

    async def _held(
        self,
        request: Request,
        call: Callable[[Waited], Awaitable[T]],
        answer: Callable[[Request, asyncio.Future[T]], Awaitable[Response]],
    ) -> Response:
        """`call`'s answer; or, while the keyring holds it, the daemon's words for that wait (the
        part then asks for the answer)."""
        said: list[str] = []
        spoke = asyncio.Event()

        def waiting(text: str) -> None:
            said.append(text)
            spoke.set()

        running = asyncio.ensure_future(call(waiting))
        heard = asyncio.ensure_future(spoke.wait())
        await asyncio.wait({running, heard}, return_when=asyncio.FIRST_COMPLETED)
        heard.cancel()
        if running.done():
            return await answer(request, running)
        running.add_done_callback(_heard)  # its outcome is read even should no page ask for it

        async def later(asked: Request) -> Response:
            await asyncio.wait({running})  # a page that went away meanwhile does not cancel the call
            return await answer(asked, running)

        key = secrets.token_urlsafe(16)
        self._waiting[key] = later
        return await self._part(request, waiting=said[0], pending=key)

    async def waited(self, request: Request) -> Response:
        """The targets once the call the keyring held is done (at once for one unknown here)."""
        later = self._waiting.pop(request.path_params["key"], None)
        return await (self._part(request) if later is None else later(request))

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
        return await self._held(
            request,
            lambda said: ask(api.PUSH_REMOVE, api.PushNameArgs(name=name), on_wait=said),
            lambda later, done: self._removed(later, name, done),
        )

    async def _removed(self, request: Request, name: str, removing: asyncio.Future[replies.NameReply]) -> Response:
        try:
            removing.result()
        except CallFailedError as exc:
            return await self._part(request, problem=str(exc))
        return await self._part(request, notice=f"{name} removed; its URL is deleted from the OS keyring.")


def _heard(done: asyncio.Future[T]) -> None:
    if not done.cancelled():
        done.exception()
