"""A question on every surface, from the event alone (pure parts): the notification's words and
buttons, the tray's "Needs you (N)", the push (approvals' kind, never a value), the buttons' ids
and what they answer; and the pending questions themselves (bounded, cancelled in time, closed by
`elicitation/complete`, no value in any event)."""

from __future__ import annotations

import asyncio
from typing import Any

from acp_tray.agents.questions import MAX_PENDING_PER_AGENT, QuestionError, Questions
from acp_tray.events import AgentState, Event, QuestionAsked, QuestionSettled
from acp_tray.presentation.actions import OpenWindow, QuestionAnswer, parse_action
from acp_tray.presentation.own_notices import own_notice
from acp_tray.presentation.question_notice import question_actions
from acp_tray.protocol.elicitation import parse_question
from acp_tray.push.choice import message_of, push_kind
from acp_tray.tray.menu import menu_of
from acp_tray.tray.snapshot import AgentRow, QuestionRow, TraySnapshot, tooltip_of
from tests.support.presentations import make_presentation

COLOURS = {
    "type": "string",
    "title": "Colour",
    "oneOf": [{"const": "red", "title": "Red"}, {"const": "blue", "title": "Blue"}],
}


def form(message: str, properties: dict[str, Any], required: tuple[str, ...] = ()) -> dict[str, Any]:
    schema = {"type": "object", "properties": properties, "required": list(required)}
    return {"sessionId": "s1", "mode": "form", "message": message, "requestedSchema": schema}


def asked(params: dict[str, Any], qid: str = "q1") -> QuestionAsked:
    return QuestionAsked("claude", "s1", qid, parse_question(params), 300.0)


def test_the_notification_says_who_asks_what_with_a_button_per_choice() -> None:
    own = own_notice(asked(form("Which colour should the button be?", {"colour": COLOURS}, ("colour",))))
    assert own is not None and own.attention == "approval"  # DND and push treat it as an approval
    assert own.notice.title == "Question"
    assert (own.notice.description or "").splitlines()[0] == "claude asks: Which colour should the button be?"
    assert [label for _, label in own.actions] == ["Red", "Blue"]
    assert parse_action(own.actions[1][0]) == QuestionAnswer("q1", "choose", "blue")
    yes_no = own_notice(asked(form("Push now?", {"ok": {"type": "boolean"}})))
    assert yes_no is not None and [label for _, label in yes_no.actions] == ["Yes", "No"]


def test_a_bigger_form_offers_answer_which_opens_the_window_and_a_page_offers_open() -> None:
    own = own_notice(asked(form("Details?", {"colour": COLOURS, "name": {"type": "string"}})))
    assert own is not None
    assert [(parse_action(a), label) for a, label in own.actions] == [
        (OpenWindow("overview"), "Answer…"),
        (QuestionAnswer("q1", "decline"), "Decline"),
    ]
    assert "acp-tray answer q1 FIELD=VALUE…" in (own.notice.description or "")
    page = {"sessionId": "s1", "mode": "url", "message": "Sign in", "url": "https://auth.example.com/x?code=C0DE"}
    own = own_notice(asked({**page, "elicitationId": "e1"}))
    assert own is not None
    text = own.notice.description or ""
    assert text.startswith("claude asks you to open a page on auth.example.com: Sign in") and "C0DE" not in text
    assert [label for _, label in own.actions] == ["Open", "Decline"]
    plain = asked({**page, "url": "http://example.com/x", "elicitationId": "e2"})
    assert [label for _, label in question_actions("q1", plain.question)] == ["Decline"]  # never opened


def test_the_tray_lists_questions_under_needs_you_and_the_tooltip_counts_them() -> None:
    question = asked(form("Which colour should the button be?", {"colour": COLOURS}, ("colour",)))
    row = QuestionRow("q1", "claude", question.question.message, question_actions("q1", question.question))
    snapshot = TraySnapshot(agents=(AgentRow("claude", AgentState.CONNECTED),), questions=(row,))
    (needs,) = [entry for entry in menu_of(snapshot) if entry.label.startswith("Needs you")]
    assert needs.label == "Needs you (1)"
    (item,) = needs.children
    assert item.label == "claude asks: Which colour should the button be?"
    assert [(c.label, c.action) for c in item.children] == [
        ("Red", "question:q1:choose:red"),
        ("Blue", "question:q1:choose:blue"),
    ]
    assert "1 question" in tooltip_of(snapshot)


def test_a_push_is_of_the_approvals_kind_and_carries_no_value() -> None:
    event = asked(form("Which colour should the button be?", {"colour": COLOURS}, ("colour",)))
    assert push_kind(event, "warning") == "approvals"
    message = message_of(make_presentation(1, "Question", "warning", agent="claude"), event)
    assert message.body.startswith("It asks: Which colour should the button be?")
    assert "acp-tray answer q1" in message.body


async def test_questions_are_bounded_timed_out_and_closed_by_complete_with_no_value_in_any_event() -> None:
    events: list[Event] = []
    questions = Questions(events.append)
    pick = parse_question(form("Which colour?", {"colour": COLOURS}, ("colour",)))
    answered = asyncio.ensure_future(questions.ask("claude", pick, expires_after=300))
    timed = asyncio.ensure_future(questions.ask("claude", pick, expires_after=0.01))
    page = parse_question(
        {"sessionId": "s1", "mode": "url", "message": "m", "url": "https://a.b/", "elicitationId": "e9"}
    )
    completed = asyncio.ensure_future(questions.ask("claude", page, expires_after=300))
    await asyncio.sleep(0)
    try:
        questions.answer("q1", {"colour": "green"})
    except QuestionError as exc:
        assert str(exc).startswith("Colour: 'green' is not one of the choices")
    assert questions.answer("q1", {"colour": "Blue"}) == {"colour": "blue"}
    assert await answered == {"action": "accept", "content": {"colour": "blue"}}
    assert await timed == {"action": "cancel"}
    questions.complete("claude", "e9")
    assert await completed == {"action": "cancel"}
    settled = [(e.question_id, e.outcome, e.by) for e in events if isinstance(e, QuestionSettled)]
    assert settled == [("q1", "answered", "person"), ("q2", "cancelled", "timeout"), ("q3", "cancelled", "complete")]
    ends = [e for e in events if isinstance(e, QuestionSettled)]
    assert "blue" not in repr(ends)  # how it ended, never what was answered: the answer went to the agent only
    flood = [
        asyncio.ensure_future(questions.ask("claude", pick, expires_after=300))
        for _ in range(MAX_PENDING_PER_AGENT + 1)
    ]
    await asyncio.sleep(0)
    assert len(questions.pending()) == MAX_PENDING_PER_AGENT and await flood[-1] == {"action": "cancel"}
    questions.forget_agent("claude")
    assert {(await f)["action"] for f in flood} == {"cancel"} and questions.pending() == []
