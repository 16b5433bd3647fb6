"""Questions waiting for the person (elicitation): a form to fill in or a page to open, answered,
declined or cancelled; bounded per agent, cancelled when unanswered in the approvals' time.

Like a permission request, nothing is answered by default: a question waits for the person and
is answered `cancel` when the time is up, when the turn is cancelled or the agent goes (in ACP 2
the agent is told, so it stops waiting). The values the person gives go to the agent only: the
events, the log and the history say how a question ended, never what was answered.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from acp_tray.events import EventSink, QuestionAsked, QuestionOutcome, QuestionSettled
from acp_tray.protocol.elicitation import Question, Value, accepted, cancelled, declined
from acp_tray.protocol.form_answer import AnswerError, check_answer

log = logging.getLogger(__name__)

MAX_PENDING_PER_AGENT = 32  # questions of one agent waiting for the person
ID_PREFIX = "q"  # question ids ("q1", "q2", ...) never look like an approval's
OUTCOMES: dict[str, QuestionOutcome] = {"accept": "answered", "decline": "declined", "cancel": "cancelled"}


class QuestionError(Exception):
    """An answer that cannot be given (no such question, a value that does not fit): the message says why."""


@dataclass
class PendingQuestion:
    question_id: str
    agent: str
    question: Question
    timeout: float
    answer: asyncio.Future[dict[str, Any]] = field(repr=False)
    timer: asyncio.TimerHandle | None = field(default=None, repr=False)
    request_id: object = None  # the agent's JSON-RPC id, for its `$/cancel_request`
    subagent: str = ""  # asked by a child session: its name


class Questions:
    """All pending questions of the daemon, by id ("q1", "q2", ...)."""

    def __init__(self, sink: EventSink) -> None:
        self._sink = sink
        self._pending: dict[str, PendingQuestion] = {}
        self._next = 0

    def pending(self) -> list[PendingQuestion]:
        return list(self._pending.values())

    async def ask(
        self, agent: str, question: Question, *, expires_after: float, request_id: object = None, subagent: str = ""
    ) -> dict[str, Any]:
        """The answer to send back for one `elicitation/create`; unanswered, it is cancelled after
        `expires_after` seconds (and the person told)."""
        if sum(p.agent == agent for p in self._pending.values()) >= MAX_PENDING_PER_AGENT:
            log.warning("%s has %d questions waiting; a further one is cancelled", agent, MAX_PENDING_PER_AGENT)
            return cancelled()
        self._next += 1
        question_id = f"{ID_PREFIX}{self._next}"
        loop = asyncio.get_running_loop()
        pending = PendingQuestion(
            question_id, agent, question, expires_after, loop.create_future(), None, request_id, subagent
        )
        pending.timer = loop.call_later(expires_after, self._settle, question_id, cancelled(), "timeout")
        self._pending[question_id] = pending
        self._sink(QuestionAsked(agent, question.session_id, question_id, question, expires_after, subagent=subagent))
        try:
            return await pending.answer
        finally:  # answered, or the agent's request went away (connection closed): then say so
            if self._pending.pop(question_id, None) is not None:
                if pending.timer is not None:
                    pending.timer.cancel()
                self._sink(QuestionSettled(agent, question.session_id, question_id, "cancelled", "disconnect"))

    def get(self, question_id: str) -> PendingQuestion:
        pending = self._pending.get(question_id)
        if pending is None:
            waiting = ", ".join(self._pending) or "none"
            raise QuestionError(f"no pending question {question_id!r} (pending: {waiting})")
        return pending

    def answer(self, question_id: str, values: Mapping[str, object], *, by: str = "person") -> dict[str, Value]:
        """Accept: a form with `values` (checked and typed by its schema; QuestionError says what
        does not fit, and the question keeps waiting), a page (no values) as opened by the person.
        `by`: who answered ("person" at the desk, "phone:TARGET" from a push's button)."""
        pending = self.get(question_id)
        if pending.question.mode == "url":
            if values:
                raise QuestionError(f"question {question_id} asks you to open a page; it has no fields to fill")
            self._settle(question_id, accepted(), by)
            return {}
        try:
            content = check_answer(pending.question.fields, values)
        except AnswerError as exc:
            raise QuestionError(str(exc)) from None
        self._settle(question_id, accepted(content), by)
        return content

    def decline(self, question_id: str) -> None:
        self.get(question_id)
        self._settle(question_id, declined(), "person")

    def cancel(self, question_id: str) -> None:
        self.get(question_id)
        self._settle(question_id, cancelled(), "person")

    def complete(self, agent: str, elicitation_id: str) -> None:
        """`elicitation/complete`: what the page was for is done; a question still waiting for it
        is closed everywhere (answered `cancel`: the person did not answer it here)."""
        for pending in list(self._pending.values()):
            if pending.agent == agent and pending.question.elicitation_id == elicitation_id:
                self._settle(pending.question_id, cancelled(), "complete")

    def cancel_session(self, agent: str, session_id: str) -> None:
        """The turn was cancelled: the session's questions are cancelled (as its approvals are)."""
        for pending in list(self._pending.values()):
            if pending.agent == agent and pending.question.session_id == session_id:
                self._settle(pending.question_id, cancelled(), "cancel")

    def cancel_request(self, agent: str, request_id: object) -> None:
        """The agent withdrew its question (`$/cancel_request`)."""
        for pending in list(self._pending.values()):
            same = type(pending.request_id) is type(request_id) and pending.request_id == request_id
            if pending.agent == agent and same:
                self._settle(pending.question_id, cancelled(), "agent")

    def forget_agent(self, agent: str) -> None:
        """The agent's connection is gone (it restarted, stopped or crashed): nothing can be answered."""
        for pending in list(self._pending.values()):
            if pending.agent == agent:
                self._settle(pending.question_id, cancelled(), "disconnect")

    def _settle(self, question_id: str, answer: dict[str, Any], by: str) -> None:
        pending = self._pending.pop(question_id, None)
        if pending is None or pending.answer.done():
            return
        if pending.timer is not None:
            pending.timer.cancel()
        pending.answer.set_result(answer)
        outcome = OUTCOMES[answer["action"]]
        log.info("%s: question %s %s by %s", pending.agent, question_id, outcome, by)  # never the values
        self._sink(QuestionSettled(pending.agent, pending.question.session_id, question_id, outcome, by))
