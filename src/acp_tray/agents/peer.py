"""What one hosted agent asks of acp-tray (the peer its `ClientHandler` calls): message text and
turn state go to its live sessions, permission requests to the approvals under its policy, and
questions (elicitation) to the person, with the approvals' time to answer; a question acp-tray
cannot show is declined and said."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from acp_tray.agents.approvals import Approvals
from acp_tray.agents.live_sessions import LiveSessions
from acp_tray.agents.questions import Questions
from acp_tray.agents.spec import PermissionPolicy
from acp_tray.events import EventSink, InputRequested
from acp_tray.protocol.elicitation import UnaskableError, completed_id, declined, parse_question
from acp_tray.protocol.session import (
    StateChange,
    elicitation_message,
    elicitation_session,
    parse_permission_request,
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

    def on_message_text(self, session_id: str, text: str, message: str | None = None, whole: bool = False) -> None:
        session = self._sessions.by_id.get(session_id)
        if session is not None:
            session.on_message_text(text, message, whole)

    async def request_permission(self, params: object) -> dict[str, Any]:
        request = parse_permission_request(params)
        policy = self._policy()
        return await self._approvals.request(
            self._name, request, policy=policy.policy, expires_after=policy.timeout, request_id=self._request_id(params)
        )

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
        return await self._questions.ask(
            self._name, question, expires_after=expires_after, request_id=self._request_id(params)
        )

    def completed(self, params: object) -> None:
        """`elicitation/complete`: the question it names is closed everywhere."""
        elicitation_id = completed_id(params)
        if elicitation_id is not None:
            self._questions.complete(self._name, elicitation_id)
