"""The window's requests to the daemon: the control API's ops, run on a worker thread (the client
is blocking) so that a slow answer never holds the pages' event loop."""

from __future__ import annotations

import asyncio
from typing import Any, TypeVar

from acp_tray.control.api import Args, Op
from acp_tray.control.client import NoDaemonError, ReplyError, request

A = TypeVar("A", bound=Args)
R = TypeVar("R")
TIMEOUT = 30.0


class CallFailedError(Exception):
    """The daemon refused the request or is gone: the message is for the person, `code` the
    control API's (an ErrorCode's value; "" when the daemon is gone)."""

    def __init__(self, message: str, code: str = "") -> None:
        super().__init__(message)
        self.code = code


async def ask(op: Op[A, R, object], args: A, *, within: float = TIMEOUT) -> R:
    """`op`'s reply, waited for `within` seconds at most (a sign-in may wait for the person)."""
    try:
        return await asyncio.to_thread(request, op, args, timeout=within)
    except (NoDaemonError, ReplyError) as exc:
        raise failed(exc) from None


def failed(exc: NoDaemonError | ReplyError) -> CallFailedError:
    """A request's failure in the person's words."""
    if isinstance(exc, NoDaemonError):
        return CallFailedError("acp-tray is not running any more.")
    return CallFailedError(str(exc), exc.code)


def one_line(reply: Any) -> str:
    """A short confirmation from a reply, when it carries a name or state."""
    if isinstance(reply, dict):
        for key in ("detail", "dnd", "state", "name"):
            if reply.get(key):
                return str(reply[key])
    return "Done."
