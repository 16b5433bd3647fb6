"""Permission requests waiting for the person: the per-agent policy, answers, timeouts, cancellation.

Nothing is ever approved by default: `ask` waits for an explicit choice (CLI, tray or notification
button) and answers `cancelled` when the time is up, when the turn is cancelled or the agent goes;
`reject` picks the agent's reject option; only `allow` approves, and only with an allow option the
agent offered (never an option of an unknown kind). A dismissed notification answers nothing.
At most MAX_PENDING_PER_AGENT requests of one agent wait at a time; more are answered `cancelled`.
"""

from __future__ import annotations

import asyncio
import logging
from dataclasses import dataclass, field
from typing import Any

from acp_tray.events import Event, EventSink, PermissionAsked, PermissionSettled
from acp_tray.protocol.session import (
    ALLOW_KINDS,
    REJECT_KINDS,
    PermissionOption,
    PermissionRequest,
    ToolCallScope,
    cancelled,
    first_of_kinds,
    selected,
)

log = logging.getLogger(__name__)

MAX_PENDING_PER_AGENT = 32  # permission requests waiting for the person, per agent


class ApprovalError(Exception):
    """An answer that cannot be given (unknown id, unknown option): the message says why."""


@dataclass
class Pending:
    approval_id: str
    agent: str
    session_id: str
    title: str
    options: tuple[PermissionOption, ...]
    answer: asyncio.Future[dict[str, Any]] = field(repr=False)
    timer: asyncio.TimerHandle | None = field(default=None, repr=False)
    request_id: object = None  # the agent's JSON-RPC id, for its `$/cancel_request`
    scope: ToolCallScope = field(default_factory=ToolCallScope)  # what it runs and touches
    description: str = ""  # why the agent asks (v2)
    subagent: str = ""  # asked by a child session: its name


def policy_outcome(policy: str, options: tuple[PermissionOption, ...]) -> dict[str, Any] | None:
    """The answer a policy gives by itself, or None when the person must be asked."""
    if policy == "reject":
        option = first_of_kinds(options, REJECT_KINDS)
        return selected(option.option_id) if option else cancelled()
    if policy == "allow":
        option = first_of_kinds(options, ALLOW_KINDS)
        return selected(option.option_id) if option else None  # nothing to allow with: ask
    return None


class Approvals:
    """All pending permission requests of the daemon, by short id ("1", "2", ...)."""

    def __init__(self, sink: EventSink) -> None:
        self._sink = sink
        self._pending: dict[str, Pending] = {}
        self._next = 0
        self._flooding: set[str] = set()  # agents told their requests are over the cap

    def pending(self) -> list[Pending]:
        return list(self._pending.values())

    async def request(
        self,
        agent: str,
        request: PermissionRequest,
        *,
        policy: str,
        expires_after: float,
        request_id: object = None,
        subagent: str = "",
    ) -> dict[str, Any]:
        """The outcome to send back for one `session/request_permission`; unanswered, it is cancelled
        after `expires_after` seconds (the request's own expiry, shown to the person)."""
        outcome = policy_outcome(policy, request.options)
        if outcome is not None:
            log.warning(
                "%s asked for permission for %r; answered %s by the %r policy",
                agent,
                request.title,
                outcome["outcome"].get("optionId", "cancelled"),
                policy,
            )
            return outcome
        waiting = sum(p.agent == agent for p in self._pending.values())
        if waiting >= MAX_PENDING_PER_AGENT:  # a flood: the excess is answered at once, said once
            if agent not in self._flooding:
                self._flooding.add(agent)
                log.warning(
                    "%s has %d permission requests waiting; further ones are answered 'cancelled' until some are "
                    "answered",
                    agent,
                    waiting,
                )
            return cancelled()
        self._flooding.discard(agent)
        self._next += 1
        approval_id = str(self._next)
        loop = asyncio.get_running_loop()
        pending = Pending(
            approval_id,
            agent,
            request.session_id,
            request.title,
            request.options,
            loop.create_future(),
            None,
            request_id,
            request.scope,
            request.description,
            subagent,
        )
        pending.timer = loop.call_later(expires_after, self._settle, approval_id, cancelled(), "timeout")
        self._pending[approval_id] = pending
        self._emit(
            PermissionAsked(
                agent,
                request.session_id,
                approval_id,
                request.title,
                request.options,
                expires_after,
                touches=request.scope,
                subagent=subagent,
                description=request.description,
            )
        )
        try:
            return await pending.answer
        finally:  # answered, or the agent's request went away (connection closed): then say so
            if self._pending.pop(approval_id, None) is not None:
                if pending.timer is not None:
                    pending.timer.cancel()
                self._emit(PermissionSettled(agent, request.session_id, approval_id, "cancelled", "disconnect"))

    def approve(self, approval_id: str, choice: str | None = None, *, by: str = "person") -> PermissionOption:
        """Approve with `choice` (an option id or kind); without one, the agent's only allow option.
        `by`: who answered ("person" at the desk, "phone:TARGET" from a push's button)."""
        pending = self._get(approval_id)
        if choice is None:
            allow = [o for o in pending.options if o.kind in ALLOW_KINDS]
            if len(allow) != 1:
                raise ApprovalError(
                    f"request {approval_id} offers {len(allow)} allow options; name one: {self._listing(pending)}"
                )
            option = allow[0]
        else:
            found = [o for o in pending.options if choice in (o.option_id, o.kind)]
            if not found:
                listing = self._listing(pending)
                raise ApprovalError(f"request {approval_id} has no option {choice!r}; choose from {listing}")
            option = found[0]
        self._settle(approval_id, selected(option.option_id), by)
        return option

    def deny(self, approval_id: str) -> PermissionOption | None:
        """Reject with the agent's reject option, or answer `cancelled` if it offers none."""
        pending = self._get(approval_id)
        option = first_of_kinds(pending.options, REJECT_KINDS)
        self._settle(approval_id, selected(option.option_id) if option else cancelled(), "person")
        return option

    def cancel_session(self, agent: str, session_id: str) -> None:
        """The turn was cancelled: every pending request of the session answers `cancelled` (ACP rule)."""
        for pending in list(self._pending.values()):
            if pending.agent == agent and pending.session_id == session_id:
                self._settle(pending.approval_id, cancelled(), "cancel")

    def cancel_request(self, agent: str, request_id: object) -> None:
        """The agent withdrew its request (`$/cancel_request`): answered `cancelled`."""
        for pending in list(self._pending.values()):
            same = type(pending.request_id) is type(request_id) and pending.request_id == request_id
            if pending.agent == agent and same:
                self._settle(pending.approval_id, cancelled(), "agent")

    def forget_agent(self, agent: str) -> None:
        """The agent's connection is gone: its requests can no longer be answered."""
        for pending in list(self._pending.values()):
            if pending.agent == agent:
                self._settle(pending.approval_id, cancelled(), "disconnect")

    def _get(self, approval_id: str) -> Pending:
        pending = self._pending.get(approval_id)
        if pending is None:
            waiting = ", ".join(self._pending) or "none"
            raise ApprovalError(f"no pending request {approval_id!r} (pending: {waiting})")
        return pending

    @staticmethod
    def _listing(pending: Pending) -> str:
        return ", ".join(f"{o.option_id} ({o.kind or 'unknown kind'})" for o in pending.options) or "no options"

    def _settle(self, approval_id: str, outcome: dict[str, Any], by: str) -> None:
        pending = self._pending.pop(approval_id, None)
        if pending is None or pending.answer.done():
            return
        if pending.timer is not None:
            pending.timer.cancel()
        pending.answer.set_result(outcome)
        chosen = outcome["outcome"].get("optionId", "cancelled")
        log.info(
            "%s: permission request %s (%s) answered %s by %s", pending.agent, approval_id, pending.title, chosen, by
        )
        self._emit(PermissionSettled(pending.agent, pending.session_id, approval_id, chosen, by))

    def _emit(self, event: Event) -> None:
        self._sink(event)
