"""An agent's own sign-in request in flight (`authenticate` / `auth/login`): waited for until it
answers, the person gives up, or LOGIN_TIMEOUT; a given-up one is cancelled in the agent with ACP's
request cancellation (`$/cancel_request`, in both protocol versions' schemas), and an agent that
does not end it within CANCEL_GRACE is said to be stuck in it (its host then restarts it)."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable
from typing import Any, Protocol

from acp_tray.prefs.names import pasteable

CANCEL_REQUEST = "$/cancel_request"
LOGIN_TIMEOUT = 300.0  # an agent's own sign-in may open a browser and wait for the person
CANCEL_GRACE = 3.0  # seconds for the agent to end a cancelled sign-in before it is restarted


class Requester(Protocol):
    async def send_request(self, method: str, params: Any | None = None) -> Any: ...

    async def send_notification(self, method: str, params: Any | None = None) -> None: ...


class AbandonedError(Exception):
    """The sign-in was given up (`why`): cancelled in the agent, or the agent is stuck in it."""

    def __init__(self, why: str, *, stuck: bool) -> None:
        super().__init__(why)
        self.why = why
        self.stuck = stuck


def abandoned_text(agent: str, exc: AbandonedError) -> str:
    """What was done about a given-up sign-in (its caller restarts an agent stuck in it), in words."""
    if exc.stuck:
        done = f"{agent} did not end it when asked, so acp-tray restarted {agent} (freeing what the sign-in held)"
    else:
        done = f"{agent} cancelled it"
    return f"stopped waiting for the sign-in to {agent} ({exc.why}); {done}. Try again: `{pasteable('login', agent)}`"


class LoginRequest:
    """One sign-in request; `give_up` (the person stopped waiting) ends the wait from elsewhere."""

    def __init__(self, connection: Requester, method: str, params: dict[str, Any]) -> None:
        self._connection, self._method, self._params = connection, method, params
        self._given_up = asyncio.Event()
        self.why = ""

    def give_up(self, why: str) -> None:
        if not self._given_up.is_set():
            self.why = why
            self._given_up.set()

    async def run(self, request_id: Callable[[], object]) -> None:
        """The agent's answer (its RequestError and ConnectionError pass), or AbandonedError.
        `request_id`: the id the request went out with (None if unknown)."""
        pending = asyncio.ensure_future(self._connection.send_request(self._method, self._params))
        given_up = asyncio.ensure_future(self._given_up.wait())
        try:
            await asyncio.wait((pending, given_up), timeout=LOGIN_TIMEOUT, return_when=asyncio.FIRST_COMPLETED)
        except asyncio.CancelledError:  # the agent is stopped, or acp-tray is
            pending.cancel()
            raise
        finally:
            given_up.cancel()
        if pending.done():
            await pending
            return
        self.give_up(f"it did not finish within {LOGIN_TIMEOUT:g} s")
        ended = await self._cancel(pending, request_id())
        if not ended:
            raise AbandonedError(self.why, stuck=True)
        raise AbandonedError(self.why, stuck=False)

    async def _cancel(self, pending: asyncio.Future[Any], request_id: object) -> bool:
        """`$/cancel_request` for it; whether the agent ended the request within CANCEL_GRACE."""
        if request_id is not None:
            with contextlib.suppress(Exception):
                await self._connection.send_notification(CANCEL_REQUEST, {"requestId": request_id})
        done, _ = await asyncio.wait((pending,), timeout=CANCEL_GRACE)
        if not done:
            pending.cancel()  # the SDK forgets it; a late answer is dropped
        elif not pending.cancelled():
            pending.exception()  # its answer (most likely "cancelled") is not needed
        return bool(done)
