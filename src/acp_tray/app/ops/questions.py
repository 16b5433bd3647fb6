"""The question ops: `questions` (waiting, with their forms) and `answer` (values checked against
the form, or declined, or cancelled). Replies are bounded whatever the agents send, and never hold
an answer."""

from __future__ import annotations

from typing import TYPE_CHECKING

from acp_tray.agents.questions import PendingQuestion, QuestionError, Questions
from acp_tray.control.api import AnswerArgs
from acp_tray.control.errors import ErrorCode, OpError
from acp_tray.control.replies import AnsweredReply, FieldRow, QuestionDetail, QuestionRow
from acp_tray.presentation.actions import QuestionAnswer
from acp_tray.protocol.elicitation import FormField, openable, url_host
from acp_tray.protocol.form_answer import typed_hint

if TYPE_CHECKING:
    from acp_tray.app.actions import NotificationActions


def field_row(f: FormField) -> FieldRow:
    default = list(f.default) if isinstance(f.default, list) else f.default
    return {
        "name": f.name, "kind": f.kind, "title": f.title, "description": f.description, "required": f.required,
        "default": default, "choices": [{"value": c.value, "label": c.label} for c in f.choices],
        "minimum": f.minimum, "maximum": f.maximum, "min_length": f.min_length, "max_length": f.max_length,
        "format": f.format, "hint": typed_hint(f),
    }  # fmt: skip


def question_row(p: PendingQuestion) -> QuestionRow:
    q = p.question
    return {
        "id": p.question_id, "agent": p.agent, "session_id": q.session_id, "mode": q.mode, "message": q.message,
        "host": url_host(q.url) if q.mode == "url" else "", "opens": q.mode == "url" and openable(q.url) is None,
        "fields": [field_row(f) for f in q.fields], "timeout": p.timeout, "subagent": p.subagent,
    }  # fmt: skip


def question_rows(questions: Questions) -> list[QuestionRow]:
    return [question_row(p) for p in questions.pending()]


class QuestionOps:
    def __init__(self, questions: Questions, notifications: NotificationActions) -> None:
        self._questions = questions
        self._notifications = notifications  # a page question opened as its notification's Open does

    async def questions(self) -> list[QuestionDetail]:
        return [{**question_row(p), "url": p.question.url} for p in self._questions.pending()]

    async def answer(self, args: AnswerArgs) -> AnsweredReply:
        questions = self._questions
        try:
            pending = questions.get(args.id)
            if args.action == "decline":
                questions.decline(args.id)
                return {"id": args.id, "outcome": "declined", "url": ""}
            if args.action == "cancel":
                questions.cancel(args.id)
                return {"id": args.id, "outcome": "cancelled", "url": ""}
            if args.action == "open":
                self._open(pending)
                return {"id": args.id, "outcome": "answered", "url": ""}
            questions.answer(args.id, args.values)
        except QuestionError as exc:
            code = ErrorCode.NOT_FOUND if str(exc).startswith("no pending question") else ErrorCode.BAD_REQUEST
            raise OpError(str(exc), code) from None
        return {"id": args.id, "outcome": "answered", "url": pending.question.url}

    def _open(self, pending: PendingQuestion) -> None:
        """As the notification's Open: only a page question, only a page acp-tray opens."""
        question = pending.question
        if question.mode != "url":
            raise OpError(f"question {pending.question_id} is a form: it has no page to open", ErrorCode.BAD_REQUEST)
        why_not = openable(question.url)
        if why_not is not None:
            raise OpError(f"acp-tray will not open that page: {why_not}", ErrorCode.BAD_REQUEST)
        self._notifications.answer(QuestionAnswer(pending.question_id, "open"))
