"""What came of a sign-in the agent accepted: its state once what waited on the sign-in had a
moment to go on, and whether that is "signed in" (the one rule of `acp-tray login`, the window,
the tray and the notifications' buttons)."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import TYPE_CHECKING

from acp_tray.control.api import CONNECT_WAIT
from acp_tray.control.replies import StateReply
from acp_tray.events import AgentState, AgentStatus

if TYPE_CHECKING:
    from acp_tray.agents.host import AgentHost


async def settled(host: AgentHost) -> None:
    """Until the agent is connected or refuses for want of a sign-in (at most CONNECT_WAIT seconds)."""
    waits = (asyncio.ensure_future(host.connected.wait()), asyncio.ensure_future(host.signin.refused()))
    try:
        await asyncio.wait(waits, timeout=CONNECT_WAIT, return_when=asyncio.FIRST_COMPLETED)
    finally:
        for waiting in waits:
            waiting.cancel()


async def state_after_signin(host: AgentHost | None, status: Callable[[], AgentStatus | None]) -> StateReply:
    """The agent's state once what waited on the sign-in had a moment to go on: connected, or
    (said at once) refused again with the agent's words; else its last status (`status`)."""
    if host is not None and host.signin.needed is None:
        await settled(host)
    if host is not None and (host.connected.is_set() or host.signin.needed is not None):
        state = AgentState.NEEDS_SIGNIN if host.signin.needed is not None else AgentState.CONNECTED
        return {"state": state.value, "detail": host.last_detail}  # the host's own (events may be queued)
    last = status()
    return {"state": last.state.value if last else "stopped", "detail": last.detail if last else ""}


def agent_outcome(name: str, method: str, was_connected: bool, after: StateReply) -> tuple[bool, str]:
    """Whether an agent's own sign-in that it accepted took (it was not connected, or it refused
    for want of a sign-in, and now is connected), and what came of it in words: an accepted
    sign-in that changed nothing is not "signed in"."""
    state, detail = after["state"], after["detail"]
    if not was_connected and state == AgentState.CONNECTED:
        return True, f"signed in with {method}"
    if state == AgentState.NEEDS_SIGNIN:
        return False, f"the sign-in with {method} did not take: it still refuses: {detail}"
    if state == AgentState.CONNECTED:
        return False, (
            f"{name} accepted the sign-in with {method}, but nothing changed: it was connected before and is "
            "now, so acp-tray cannot tell that it signed you in"
        )
    return False, f"{name} accepted the sign-in with {method}; it is now {state}" + (f" ({detail})" if detail else "")
