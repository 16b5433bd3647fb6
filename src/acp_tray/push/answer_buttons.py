"""What a push can offer to be answered from the phone (pure): an approval's buttons ("Allow once"
and "Reject" first, "Always allow" only when `[push] answers_always` allows it; at most three,
ntfy's limit) and a question's, a button per choice when it is one enum or boolean field of at
most three choices. Anything else is answered at the desk. Also the words the phone is told
after a press."""

from __future__ import annotations

from dataclasses import dataclass

from acp_tray.events import Event, PermissionAsked, QuestionAsked
from acp_tray.logs.text import NAME_LIMIT, plain_line
from acp_tray.prefs.model import PushPrefs
from acp_tray.presentation.actions import ApprovalAnswer, QuestionAnswer
from acp_tray.presentation.question_notice import choice_pairs
from acp_tray.protocol.session import PermissionOption, first_of_kinds

MAX_BUTTONS = 3  # ntfy shows at most three action buttons
ANSWER_HERE = "Answer with a button below, or at the desk: the tray, the window, or `acp-tray {command} {id}`."


@dataclass(frozen=True)
class Button:
    label: str
    action: ApprovalAnswer | QuestionAnswer | None  # None: `push test --answer`'s, which answers nothing
    said: str  # what the phone is told once it answered ("Allowed")


@dataclass(frozen=True)
class Answerable:
    """A request that a push can answer: its id ("3", "q2"), its buttons, how long it waits."""

    request_id: str
    buttons: tuple[Button, ...]
    expires_after: float
    what: str  # the push's title ("bot: Needs approval"): the phone's answer names it


def _approval_buttons(event: PermissionAsked, always: bool) -> tuple[Button, ...]:
    picks: list[tuple[PermissionOption | None, str, str]] = [
        (first_of_kinds(event.options, ("allow_once",)), "Allow once", "Allowed"),
        (first_of_kinds(event.options, ("reject_once", "reject_always")), "Reject", "Rejected"),
    ]
    if always:
        picks.append((first_of_kinds(event.options, ("allow_always",)), "Always allow", "Always allowed"))
    return tuple(
        Button(label, ApprovalAnswer(event.approval_id, option.option_id), said)
        for option, label, said in picks
        if option is not None
    )


def _question_buttons(event: QuestionAsked) -> tuple[Button, ...]:
    pairs = choice_pairs(event.question) if event.question.mode == "form" else ()
    if len(pairs) > MAX_BUTTONS:
        return ()
    return tuple(
        Button(
            plain_line(label, NAME_LIMIT),
            QuestionAnswer(event.question_id, "choose", value),
            "Answered: " + plain_line(label, NAME_LIMIT),
        )
        for value, label in pairs
    )


def answerable(event: Event, push: PushPrefs, what: str) -> Answerable | None:
    """What of `event` the phone can answer when `[push] answers` is on; None: nothing."""
    if not push.answers:
        return None
    if isinstance(event, PermissionAsked):
        buttons = _approval_buttons(event, push.answers_always)
        request_id = event.approval_id
    elif isinstance(event, QuestionAsked):
        buttons, request_id = _question_buttons(event), event.question_id
    else:
        return None
    return Answerable(request_id, buttons, event.timeout, what) if buttons else None


def stale_words(ended_by: str | None, expired: bool) -> str:
    """What the phone is told when a press came too late: who answered first, or why it ended."""
    if ended_by is not None and ended_by.startswith("phone:"):
        return "Already answered from the phone"
    if ended_by == "person":
        return "Already answered at the desk"
    if ended_by == "timeout" or expired:
        return "Expired: nobody answered in time, so it was cancelled"
    return "No longer waiting: the agent withdrew it, the turn was cancelled, or acp-tray restarted"
