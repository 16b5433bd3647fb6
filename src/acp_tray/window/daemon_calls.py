"""The window's requests to the daemon: the control API's ops, run on a worker thread (the client
is blocking) so that a slow answer never holds the pages' event loop. A request that fails raises
CallFailedError, which the window answers in one place (window/failed_calls.py): in the words of the
page that asked, when it gave them (`answer`)."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

from starlette.responses import Response

from acp_tray.control.api import Args, Op
from acp_tray.control.client import NoDaemonError, ReplyError, request
from acp_tray.control.replies import Waiting

A = TypeVar("A", bound=Args)
R = TypeVar("R")
TIMEOUT = 30.0
Answer = Callable[[str], Response | Awaitable[Response]]  # a page's answer to a failure, from its words
Waited = Callable[[str], None]  # given the daemon's words for what it waits for (the OS keyring)


class CallFailedError(Exception):
    """The daemon refused the request or is gone: the message is for the person, `code` the
    control API's (an ErrorCode's value; "" when the daemon is gone); `answer`, how the page that
    asked says it (None: as a problem in the page's status line, or a page saying it)."""

    def __init__(self, message: str, code: str = "", answer: Answer | None = None) -> None:
        super().__init__(message)
        self.code = code
        self.answer = answer


async def ask(
    op: Op[A, R, object],
    args: A,
    *,
    within: float = TIMEOUT,
    on_wait: Waited | None = None,
    answer: Answer | None = None,
) -> R:
    """`op`'s reply, waited for `within` seconds at most (a sign-in may wait for the person), or for
    as long as the person takes once the daemon says it waits for them (the OS keyring's dialog):
    `on_wait` is then given its words, on this event loop. Its failure is answered by `answer` when
    given."""
    loop = asyncio.get_running_loop()

    def event(said: object) -> None:
        if isinstance(said, Waiting) and on_wait is not None:
            loop.call_soon_threadsafe(on_wait, said.text)

    try:
        return await asyncio.to_thread(request, op, args, on_event=event, timeout=within)
    except (NoDaemonError, ReplyError) as exc:
        raise failed(exc, answer) from None


def failed(exc: NoDaemonError | ReplyError, answer: Answer | None = None) -> CallFailedError:
    """A request's failure in the person's words."""
    if isinstance(exc, NoDaemonError):
        return CallFailedError("acp-tray is not running any more.", answer=answer)
    return CallFailedError(str(exc), exc.code, answer)


def one_line(reply: Any) -> str:
    """A short confirmation from a reply, when it carries a name or state."""
    if isinstance(reply, dict):
        for key in ("detail", "dnd", "state", "name"):
            if reply.get(key):
                return str(reply[key])
    return "Done."
