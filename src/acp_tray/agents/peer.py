"""What one hosted agent asks of acp-tray (the peer its `ClientHandler` calls): message text, turn
state, subagents and progress go to its live sessions (a subagent's to the session it works under),
permission requests to the approvals under its policy, and questions (elicitation) to the person,
with the approvals' time to answer; a question acp-tray cannot show is declined and said. A
subagent's request names the subagent, and counts as its wait for the person while it is open."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from acp_tray.agents.approvals import Approvals
from acp_tray.agents.live_sessions import LiveSessions
from acp_tray.agents.questions import Questions
from acp_tray.agents.spec import PermissionPolicy
from acp_tray.events import EventSink, InputRequested
from acp_tray.protocol.activity import progress_of, subagent_change
from acp_tray.protocol.elicitation import UnaskableError, completed_id, declined, parse_question
from acp_tray.protocol.session import (
    StateChange,
    elicitation_message,
    elicitation_session,
    parse_permission_request,
)

SESSION_INFO = "session_info_update"
# updates that are no step of the turn: an agent's progress words stay shown through them
NOT_PROGRESS = frozenset(
    {
        SESSION_INFO,
        "usage_update",
        "available_commands_update",
        "config_option_update",
        "current_mode_update",
        "state_update",
        "subagent_update",
    }
)


class AgentPeer:
    def __init__(
        self,
        name: str,
        sink: EventSink,
        sessions: LiveSessions,
        approvals: Approvals,
        questions: Questions,
        policy: Callable[[], PermissionPolicy],  # the agent's, as the preferences now say
        request_id: Callable[[object], Any],  # the JSON-RPC id of a request, by its params
    ) -> None:
        self._name = name
        self._sink = sink
        self._sessions = sessions
        self._approvals = approvals
        self._questions = questions
        self._policy = policy
        self._request_id = request_id

    def on_state(self, session_id: str, change: StateChange) -> None:
        session = self._sessions.by_id.get(session_id)
        if session is not None:
            session.on_state(change)
            return
        parent = self._sessions.children.get(session_id)
        if parent is not None:
            parent.activity.on_child_state(session_id, change.state)

    def on_subagent(self, session_id: str, update: dict[str, Any]) -> None:
        """`subagent_update` on session `session_id`: a child announced or changed. A child of a
        child is kept under the session they all work for."""
        change = subagent_change(update)
        session = self._sessions.owner(session_id)
        if change is None or session is None or change.session_id in self._sessions.by_id:
            return
        self._sessions.children[change.session_id] = session
        session.activity.on_child(change)

    def heard(self, session_id: str, kind: str, update: dict[str, Any] | None) -> None:
        """Any update: a word from the agent on the session it works for (its progress words, when
        it sends some)."""
        session = self._sessions.owner(session_id)
        if session is None:
            return
        if kind == SESSION_INFO and update is not None:
            progress = progress_of(update)
            session.activity.heard(progress=progress, counts=progress is not None)
        else:
            session.activity.heard(counts=kind not in NOT_PROGRESS)

    def subagent(self, session_id: str) -> str:
        """The subagent's name when `session_id` is a child session, else ""."""
        return self._sessions.child_label(session_id)

    async def _as_child(self, session_id: str, request: Awaitable[dict[str, Any]]) -> dict[str, Any]:
        """A request of a child session counts as its wait for the person until it ends."""
        parent = self._sessions.children.get(session_id)
        if parent is None:
            return await request
        parent.activity.asking(session_id, +1)
        try:
            return await request
        finally:
            parent.activity.asking(session_id, -1)

    def on_message_text(self, session_id: str, text: str, message: str | None = None, whole: bool = False) -> None:
        session = self._sessions.by_id.get(session_id)
        if session is not None:
            session.on_message_text(text, message, whole)

    async def request_permission(self, params: object) -> dict[str, Any]:
        request = parse_permission_request(params)
        policy = self._policy()
        asked = self._approvals.request(
            self._name,
            request,
            policy=policy.policy,
            expires_after=policy.timeout,
            request_id=self._request_id(params),
            subagent=self.subagent(request.session_id),
        )
        return await self._as_child(request.session_id, asked)

    def cancel_request(self, params: object) -> None:
        """`$/cancel_request`: the agent no longer wants an answer; a pending approval or question is
        answered cancelled (and leaves the tray, `acp-tray approvals` and `acp-tray questions`)."""
        request_id = params.get("requestId") if isinstance(params, dict) else None
        if type(request_id) in (int, str):  # JSON-RPC ids; never a bool (True == 1 in Python)
            self._approvals.cancel_request(self._name, request_id)
            self._questions.cancel_request(self._name, request_id)

    async def ask(self, params: object) -> dict[str, Any]:
        """`elicitation/create`: the person's answer, or declined at once when it cannot be shown."""
        try:
            question = parse_question(params)
        except UnaskableError as exc:
            self._sink(InputRequested(self._name, elicitation_session(params), elicitation_message(params), str(exc)))
            return declined()
        expires_after = self._policy().timeout
        asked = self._questions.ask(
            self._name,
            question,
            expires_after=expires_after,
            request_id=self._request_id(params),
            subagent=self.subagent(question.session_id),
        )
        return await self._as_child(question.session_id, asked)

    def completed(self, params: object) -> None:
        """`elicitation/complete`: the question it names is closed everywhere."""
        elicitation_id = completed_id(params)
        if elicitation_id is not None:
            self._questions.complete(self._name, elicitation_id)
