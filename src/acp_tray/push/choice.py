"""What a presented notice is for push (its kind), whether the preferences push it now, and the
message that goes: "NAME: title" and the description, plain text, bounded. Pure: no I/O.

Kinds: an agent's notice is its severity class; acp-tray's own notices about an agent are
"approvals" (a permission request, a question), "turns" (finished, failed, stopped) and "agents" (crashed,
unusable, needs sign-in), the rest (an approval timed out, input declined) their severity class.
DND and quiet hours hold a push unless `[dnd] allow` lets its class through ("approvals" for an
approval, the severity class for everything else).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from acp_tray.events import AgentCrashed, AgentUnusable, Event, PermissionAsked, QuestionAsked, SignInNeeded, TurnEnded
from acp_tray.logs.redact import redact
from acp_tray.logs.text import DESCRIPTION_LIMIT, TITLE_LIMIT, asker, plain_line, plain_text
from acp_tray.prefs.model import Preferences, PushKind, SeverityClass
from acp_tray.presentation.approval_details import approval_details
from acp_tray.presentation.dnd import dnd_state
from acp_tray.presentation.router import Presentation
from acp_tray.presentation.severity import severity_class
from acp_tray.push.answer_buttons import ANSWER_HERE, Answerable

ANSWER_AT_THE_DESK = "It waits for your answer at the desk: the tray, the window, or `acp-tray {command} {id}`."


@dataclass(frozen=True)
class PushMessage:
    agent: str  # whose (the rate limit's key)
    severity: SeverityClass
    title: str
    body: str
    answered_here: str = ""  # the body when the push's buttons answer it (an approval, a question)
    answerable: Answerable | None = None  # what its buttons answer, where a target can carry them


def push_kind(event: Event, severity: SeverityClass) -> PushKind:
    if isinstance(event, (PermissionAsked, QuestionAsked)):
        return "approvals"
    if isinstance(event, TurnEnded):
        return "turns"
    if isinstance(event, (AgentCrashed, AgentUnusable, SignInNeeded)):
        return "agents"
    return severity


def held_by(prefs: Preferences, kind: PushKind, severity: SeverityClass, now: datetime) -> str | None:
    """Why the preferences hold this push back ("never", "kinds", "dnd"), or None: it is pushed
    (while away, when `when = "away"`)."""
    push = prefs.push
    if push.when == "never":
        return "never"
    if kind not in push.kinds:
        return "kinds"
    breaks_through = "approvals" if kind == "approvals" else severity
    if breaks_through not in {str(allowed) for allowed in prefs.dnd.allow} and dnd_state(prefs.dnd, now).active:
        return "dnd"
    return None


def _who(event: PermissionAsked | QuestionAsked) -> str:
    """Who asks: "It" (the agent the push is titled with), or its subagent ("claude › Child check")."""
    return asker(event.agent, event.subagent) if event.subagent else "It"


def message_of(presentation: Presentation, event: Event) -> PushMessage:
    """The push for `presentation` (made from `event`): an approval says what the agent wants and that
    it waits, a question what it asks (never a field's value, nor a page's address); a turn says its
    stop reason."""
    description = presentation.description or ""
    asked, where = "", {"command": "", "id": ""}
    if isinstance(event, PermissionAsked):
        details = "".join(f"\n{line}" for line in approval_details(event.touches, event.description))
        asked, where = f"{_who(event)} wants: {event.title}{details}", {"command": "approve", "id": event.approval_id}
    elif isinstance(event, QuestionAsked):
        asked, where = f"{_who(event)} asks: {event.question.message}", {"command": "answer", "id": event.question_id}
    elif isinstance(event, TurnEnded):
        reason = f"Failed: {event.error}" if event.error is not None else f"Stop reason: {event.stop_reason}"
        description = reason if not description or event.error is not None else f"{reason}\n{description}"
    here = ""
    if asked:
        description, here = f"{asked}\n{ANSWER_AT_THE_DESK.format(**where)}", f"{asked}\n{ANSWER_HERE.format(**where)}"
    severity = severity_class(presentation.kind)
    title = plain_line(redact(f"{presentation.agent}: {presentation.title}"), TITLE_LIMIT)
    answered_here = plain_text(redact(here), DESCRIPTION_LIMIT) if here else ""
    return PushMessage(
        presentation.agent, severity, title, plain_text(redact(description), DESCRIPTION_LIMIT), answered_here
    )
