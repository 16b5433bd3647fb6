"""What a native notification says: built once, sanitised once, for every backend.

Untrusted text (agent name, title, description, action labels) loses control characters and
bidi overrides and is bounded in length, each part separately. Backends may escape further for
their own format (markup) but never see raw agent text. Action ids pass through unchanged: they
are what the daemon gets back, and a backend decides how to put them on its own wire.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import IntEnum

from acp_tray.logs.text import DESCRIPTION_LIMIT, NAME_LIMIT, TITLE_LIMIT, plain_line, plain_text
from acp_tray.presentation.router import Presentation
from acp_tray.presentation.severity import severity_class


class Urgency(IntEnum):
    """freedesktop urgency levels."""

    LOW = 0
    NORMAL = 1
    CRITICAL = 2


ACTION_LABEL_LIMIT = 48  # a button or a context-menu line
MAX_ACTIONS = 8  # buttons beyond these are left to the tray menu
UNNAMED_ACTION = "(unnamed)"

# info is NORMAL, not LOW: several servers (e.g. KDE Plasma by default) never pop up LOW.
_URGENCY = {"info": Urgency.NORMAL, "warning": Urgency.NORMAL, "error": Urgency.CRITICAL, "other": Urgency.NORMAL}


@dataclass(frozen=True)
class Notification:
    group: int  # local id: repeats of a coalesced notice share it (updated in place)
    summary: str  # "agent: title ×3" (plain text)
    body: str  # the description (plain text, may hold line breaks), "" if none
    urgency: Urgency
    timeout: int  # seconds; 0 = until dismissed
    presentation: Presentation
    # (action id, label) beyond the default click: label sanitised, at most MAX_ACTIONS
    actions: tuple[tuple[str, str], ...] = ()
    severity_class: str = "other"  # picks the icon: "info", "warning", "error" or "other"
    # the body where the server shows the actions as buttons, without the commands that answer
    # them (None: the same as `body`)
    body_with_buttons: str | None = None


def notification_of(p: Presentation) -> Notification:
    agent = plain_line(p.agent, NAME_LIMIT)
    title = plain_line(p.title, TITLE_LIMIT)
    count = f" ×{p.count}" if p.count > 1 else ""
    body = plain_text(p.description, DESCRIPTION_LIMIT) if p.description else ""
    with_buttons = None
    lines = (p.description or "").split("\n")
    if p.actions and p.commands and p.commands in lines:
        with_buttons = plain_text("\n".join(line for line in lines if line != p.commands), DESCRIPTION_LIMIT)
    return Notification(
        group=p.group,
        summary=f"{agent}: {title}{count}",
        body=body,
        urgency=_URGENCY[severity_class(p.kind)],
        severity_class=severity_class(p.kind),
        timeout=p.timeout,
        presentation=p,
        actions=tuple(
            (action_id, plain_line(label, ACTION_LABEL_LIMIT) or UNNAMED_ACTION)
            for action_id, label in p.actions[:MAX_ACTIONS]
        ),
        body_with_buttons=with_buttons,
    )
