"""What a person can choose in the tray menu or on a notification, as one typed union with its own
encoding: the action id a menu entry or a notification button carries, and back (pure).

The ids: `approval:ID:OPTION_ID`, `question:ID:choose:VALUE|decline|open`, `signin:["AGENT","METHOD"]`,
`agent:start|stop|restart:NAME`, `dnd:off|on|30m|1h|tomorrow`, `quiet-hours:toggle`, `recent:open:GROUP`,
`recent:read-all`, `recent:clear`, `window:overview|agents|sessions|history|diagnostics|preferences[:HIGHLIGHT]`,
`quit`.
Only four kinds reach an agent: an approval answers its permission request with an option the agent itself offered, a
question's answer is a choice its own form offered (checked against it), a decline, or the page it asked to have opened,
a sign-in uses a method the agent itself offered, and start/stop/restart manage the agent process.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Literal, get_args

from acp_tray.presentation.window_pages import WindowPage as WindowPage  # declared on its own

AgentVerb = Literal["start", "stop", "restart"]
DndSpan = Literal["off", "on", "30m", "1h", "tomorrow"]
Simple = Literal["quiet-hours:toggle", "recent:read-all", "recent:clear", "quit"]
QuestionVerb = Literal["choose", "decline", "open"]


@dataclass(frozen=True, slots=True)
class ApprovalAnswer:
    """Answer the pending permission request `approval_id` with the agent's option `option_id`."""

    approval_id: str
    option_id: str

    def encode(self) -> str:
        return f"approval:{self.approval_id}:{self.option_id}"


@dataclass(frozen=True, slots=True)
class QuestionAnswer:
    """Answer the question `question_id`: `choose` the form's one field's `value`, `decline`, or
    `open` the page it asks the person to open (only when clicked)."""

    question_id: str
    verb: QuestionVerb
    value: str = ""

    def encode(self) -> str:
        return f"question:{self.question_id}:{self.verb}" + (f":{self.value}" if self.verb == "choose" else "")


@dataclass(frozen=True, slots=True)
class SignIn:
    """Sign in to `agent` with its method `method_id`."""

    agent: str
    method_id: str

    def encode(self) -> str:
        return "signin:" + json.dumps([self.agent, self.method_id])


@dataclass(frozen=True, slots=True)
class AgentAction:
    verb: AgentVerb
    name: str

    def encode(self) -> str:
        return f"agent:{self.verb}:{self.name}"


@dataclass(frozen=True, slots=True)
class SetDnd:
    """Do not disturb off, on until switched off, or on for a span."""

    span: DndSpan

    def encode(self) -> str:
        return f"dnd:{self.span}"


@dataclass(frozen=True, slots=True)
class RecentOpen:
    """Show the Recent list's item `group` again (and mark it read)."""

    group: int

    def encode(self) -> str:
        return f"recent:open:{self.group}"


@dataclass(frozen=True, slots=True)
class OpenWindow:
    """Open the acp-tray window at `page`; `highlight`: the history entry to show (its time)."""

    page: WindowPage
    highlight: str = ""

    def encode(self) -> str:
        return f"window:{self.page}" + (f":{self.highlight}" if self.highlight else "")


@dataclass(frozen=True, slots=True)
class Choice:
    """A choice with nothing to carry: toggling quiet hours, the Recent list's "Mark all read" and
    "Clear list", opening the preferences, quit."""

    what: Simple

    def encode(self) -> str:
        return self.what


Action = ApprovalAnswer | QuestionAnswer | SignIn | AgentAction | SetDnd | RecentOpen | OpenWindow | Choice

TOGGLE_QUIET_HOURS = Choice("quiet-hours:toggle")
READ_ALL = Choice("recent:read-all")
CLEAR_RECENT = Choice("recent:clear")
QUIT = Choice("quit")

_SIMPLE: dict[str, Simple] = {what: what for what in get_args(Simple)}
_VERBS: dict[str, AgentVerb] = {verb: verb for verb in get_args(AgentVerb)}
_SPANS: dict[str, DndSpan] = {span: span for span in get_args(DndSpan)}
_PAGES: dict[str, WindowPage] = {page: page for page in get_args(WindowPage)}


def parse_action(text: str) -> Action | None:
    """The action an id stands for; None for an id that is not one (nothing is done for it)."""
    if (simple := _SIMPLE.get(text)) is not None:
        return Choice(simple)
    kind, _, rest = text.partition(":")
    if kind == "approval":
        approval_id, sep, option_id = rest.partition(":")
        return ApprovalAnswer(approval_id, option_id) if sep else None
    if kind == "question":
        return _question(rest)
    if kind == "signin":
        return _sign_in(rest)
    if kind == "agent":
        verb, sep, name = rest.partition(":")
        return AgentAction(_VERBS[verb], name) if sep and verb in _VERBS else None
    if kind == "dnd":
        return SetDnd(_SPANS[rest]) if rest in _SPANS else None
    if kind == "recent" and rest.startswith("open:"):
        return _recent_open(rest.removeprefix("open:"))
    if kind == "window":
        page, _, highlight = rest.partition(":")
        return OpenWindow(_PAGES[page], highlight) if page in _PAGES else None
    return None


def _question(encoded: str) -> QuestionAnswer | None:
    question_id, _, rest = encoded.partition(":")
    verb, sep, value = rest.partition(":")
    if verb == "choose" and sep:
        return QuestionAnswer(question_id, "choose", value)
    if verb in ("decline", "open") and not sep:
        return QuestionAnswer(question_id, "decline" if verb == "decline" else "open")
    return None


def _recent_open(group: str) -> RecentOpen | None:
    try:
        return RecentOpen(int(group))
    except ValueError:
        return None


def _sign_in(encoded: str) -> SignIn | None:
    try:
        agent, method_id = json.loads(encoded)
    except (ValueError, TypeError):
        return None
    return SignIn(agent, method_id) if isinstance(agent, str) and isinstance(method_id, str) else None


def page_for(actions: tuple[tuple[str, str], ...]) -> WindowPage:
    """Where the window opens for a notification with these buttons: a waiting approval or question
    is on the overview, a sign-in on the agents page; anything else is its entry in the history."""
    kinds = {type(parse_action(action_id)) for action_id, _ in actions}
    if ApprovalAnswer in kinds or QuestionAnswer in kinds or OpenWindow in kinds:
        return "overview"
    if SignIn in kinds:
        return "agents"
    return "history"
