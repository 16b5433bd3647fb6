"""A question as the person first reads it (pure): "NAME asks: MESSAGE", what it wants filled in
or which page it would open (its host, in plain words), when it is cancelled; a button per choice
where the form is one enum or boolean, "Open" for a page, else "Answer…" (the window, at it)."""

from __future__ import annotations

from acp_tray.events import QuestionAsked, QuestionSettled
from acp_tray.logs.text import NAME_LIMIT, asker, plain_line
from acp_tray.prefs.names import pasteable
from acp_tray.presentation.actions import OpenWindow, QuestionAnswer
from acp_tray.presentation.when import span_words
from acp_tray.protocol.elicitation import FormField, Question, openable, url_host
from acp_tray.protocol.form_answer import typed_hint
from acp_tray.protocol.notice import Notice

MESSAGE_SHOWN = 240  # characters of the question: the commands after it fit in the body
FIELDS_SHOWN = 6
BUTTONS = 6  # choices offered as buttons; more: "Answer…"
YES_NO = (("true", "Yes"), ("false", "No"))


def field_line(field: FormField) -> str:
    """One field in a line: its label, whether it is needed, what it takes."""
    need = "" if field.required else ", optional"
    return f"• {plain_line(field.label, NAME_LIMIT)}{need}: {plain_line(typed_hint(field), MESSAGE_SHOWN)}"


def choice_pairs(question: Question) -> tuple[tuple[str, str], ...]:
    """(value, label) of each choice when the form is one enum or boolean field; () otherwise."""
    only = question.single_choice
    if only is None:
        return ()
    return YES_NO if only.kind == "boolean" else tuple((c.value, c.label) for c in only.choices)


def question_actions(qid: str, question: Question) -> tuple[tuple[str, str], ...]:
    """(action id, label) that answer it: a button per choice of a form that is one enum or boolean
    (at most BUTTONS), else "Answer…" (the window); "Open" for a page acp-tray will open; "Decline"."""
    decline = (QuestionAnswer(qid, "decline").encode(), "Decline")
    if question.mode == "url":
        opens = openable(question.url) is None
        return (((QuestionAnswer(qid, "open").encode(), "Open"),) if opens else ()) + (decline,)
    pairs = choice_pairs(question)
    if not pairs or len(pairs) > BUTTONS:
        return ((OpenWindow("overview").encode(), "Answer…"), decline)
    return tuple(
        (QuestionAnswer(qid, "choose", value).encode(), plain_line(label, NAME_LIMIT)) for value, label in pairs
    )


def question_notice(event: QuestionAsked) -> tuple[Notice, tuple[tuple[str, str], ...], str]:
    """The notice, its buttons, and the commands that answer it (for surfaces without buttons)."""
    question, qid = event.question, event.question_id
    message = plain_line(question.message, MESSAGE_SHOWN)
    decline = pasteable("answer", qid, "--decline")
    if question.mode == "url":
        host = plain_line(url_host(question.url), NAME_LIMIT) or "an unknown host"
        lines = [f"{asker(event.agent, event.subagent)} asks you to open a page on {host}: {message}"]
        why_not = openable(question.url)
        if why_not is not None:
            lines.append(f"acp-tray will not open it: {why_not}.")
        commands = f"{pasteable('questions', '--json')} shows the address · {decline}"
    else:
        lines = [f"{asker(event.agent, event.subagent)} asks: {message}"]
        lines += [field_line(f) for f in question.fields[:FIELDS_SHOWN]]
        if len(question.fields) > FIELDS_SHOWN:
            lines.append(f"… and {len(question.fields) - FIELDS_SHOWN} more")
        commands = f"{pasteable('answer', qid)} FIELD=VALUE… · {decline}"
    lines.append(f"No answer in {span_words(event.timeout)}: cancelled.")
    notice = Notice("warning", "Question", "\n".join([*lines, commands]))
    return notice, question_actions(qid, question), commands


ENDED_BY = {
    "person": "by you",
    "agent": "by the agent (it withdrew it)",
    "complete": "by the agent (what the page was for is done)",
    "cancel": "as the turn was cancelled",
    "disconnect": "as the agent went away",
}


def answered_by(by: str) -> str:
    """Who answered, in words: "by you", "from the phone (target phone)", "as the agent went away"."""
    if by.startswith("phone:"):
        return f"from the phone (target {by.removeprefix('phone:')})"
    return ENDED_BY.get(by, f"({by})")


def question_ended(event: QuestionSettled) -> Notice:
    """How a question ended, for the history only (never presented): never what was answered."""
    by = answered_by(event.by)
    text = f"Question {event.question_id} was {event.outcome} {by}."
    if event.outcome == "answered":
        text += " The answer went to the agent only: acp-tray keeps no copy."
    return Notice("info", f"Question {event.outcome}", text)
