"""The tray menu as plain data, built from a snapshot (pure: the pystray adapter only maps it).

Each actionable entry carries the id of an action (`presentation/actions.py`: the choices, their
ids, and which of them reach an agent) that the tray hands back to the daemon's loop.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from acp_tray.events import RUNNING_STATES
from acp_tray.logs.text import NAME_LIMIT, asker, plain_line
from acp_tray.presentation.actions import (
    CLEAR_RECENT,
    QUIT,
    READ_ALL,
    TOGGLE_QUIET_HOURS,
    AgentAction,
    ApprovalAnswer,
    OpenWindow,
    RecentOpen,
    SetDnd,
)
from acp_tray.presentation.options import option_label as kind_first_label
from acp_tray.presentation.recent import RecentItem
from acp_tray.presentation.when import when_label
from acp_tray.protocol.notice import SeverityKind
from acp_tray.tray.snapshot import ApprovalRow, QuestionRow, TraySnapshot

GLYPH = {
    SeverityKind.INFO: "ℹ",
    SeverityKind.WARNING: "⚠",
    SeverityKind.ERROR: "✖",
    SeverityKind.EXTENSION: "◆",
    SeverityKind.FUTURE: "◆",
}
MENU_TEXT_LIMIT = 60
MAX_APPROVALS = 20  # submenus shown (oldest first); the rest are counted
MAX_OPTIONS = 10  # options shown per approval
MAX_DOING = 10  # lines of what an agent's sessions do, in its submenu


@dataclass(frozen=True)
class Entry:
    label: str
    action: str | None = None  # None: a label, not clickable
    checked: bool | None = None  # None: not a check/radio item
    radio: bool = False
    children: tuple[Entry, ...] = ()
    icon: str | None = None  # an SVG file shown beside the label, where the tray backend can
    default: bool = False  # what activating the icon does, where the backend has that (a left click)

    @property
    def enabled(self) -> bool:
        return self.action is not None or bool(self.children)


SEPARATOR = Entry("-")


def recent_label(item: RecentItem, now: datetime | None = None) -> str:
    """ "• ⚠ 14:03 claude: Tests failing ×2": unread mark, severity, when (from `now`; None: the
    item's own day), who and what, how many times."""
    mark = "• " if item.unread else ""
    count = f" ×{item.count}" if item.count > 1 else ""
    when = when_label(item.time, item.time if now is None else now)
    text = plain_line(f"{plain_line(item.agent, NAME_LIMIT)}: {item.title}", MENU_TEXT_LIMIT)
    return f"{mark}{GLYPH[item.kind]} {when} {text}{count}"


def approval_label(row: ApprovalRow) -> str:
    return plain_line(f"{asker(plain_line(row.agent, NAME_LIMIT), row.subagent)}: {row.title}", MENU_TEXT_LIMIT)


def option_label(name: str, kind: str) -> str:
    """The option's kind, then its name ("✔ Allow always: Deny"): see `presentation.options`."""
    return kind_first_label(name, kind, MENU_TEXT_LIMIT)


def question_label(row: QuestionRow) -> str:
    return plain_line(f"{asker(plain_line(row.agent, NAME_LIMIT), row.subagent)} asks: {row.message}", MENU_TEXT_LIMIT)


def _approvals(snapshot: TraySnapshot) -> tuple[Entry, ...]:
    """The "Needs you (N)" entry: a submenu per pending request (an entry per option) and per
    question (an entry per way to answer it); none if none."""
    waiting = len(snapshot.approvals) + len(snapshot.questions)
    if not waiting:
        return ()
    rows = []
    for row in snapshot.approvals[:MAX_APPROVALS]:
        options = tuple(
            Entry(option_label(option.name, option.kind), ApprovalAnswer(row.approval_id, option.option_id).encode())
            for option in row.options[:MAX_OPTIONS]
        )
        about = tuple(Entry(plain_line(detail, MENU_TEXT_LIMIT)) for detail in row.details)
        rows.append(Entry(approval_label(row), children=about + (options or (Entry("No options offered"),))))
    for question in snapshot.questions[: max(0, MAX_APPROVALS - len(rows))]:
        answers = tuple(Entry(label, action) for action, label in question.actions[:MAX_OPTIONS])
        rows.append(Entry(question_label(question), children=answers))
    hidden = waiting - len(rows)
    if hidden > 0:
        rows.append(Entry(f"… and {hidden} more"))
    return (Entry(f"Needs you ({waiting})", children=tuple(rows)),)


def _recent(snapshot: TraySnapshot) -> Entry:
    items = tuple(Entry(recent_label(item, snapshot.at), RecentOpen(item.group).encode()) for item in snapshot.recent)
    if not items:
        items = (Entry("Nothing yet"),)
    title = f"Recent ({snapshot.unread} unread)" if snapshot.unread else "Recent"
    if snapshot.missed_during_dnd:
        title += f" · {snapshot.missed_during_dnd} held during DND"
    tail = (SEPARATOR, Entry("Mark all read", READ_ALL.encode()), Entry("Clear list", CLEAR_RECENT.encode()))
    return Entry(title, children=items + tail)


def _dnd(snapshot: TraySnapshot) -> Entry:
    """Off, on until switched off, or on until a time (shown while it is: a radio group); the
    spans; the quiet hours with their times."""
    state = snapshot.dnd
    manual = state.active and state.reason == "manual"
    entries = [
        Entry("Off", SetDnd("off").encode(), checked=not manual, radio=True),
        Entry("On until I turn it off", SetDnd("on").encode(), checked=manual and state.until is None, radio=True),
    ]
    if manual and state.until is not None:
        entries.append(Entry(f"On, until {state.until:%a %H:%M}", None, checked=True, radio=True))
    start, end = snapshot.quiet_hours
    quiet = f"Quiet hours {start:%H:%M}–{end:%H:%M}"
    entries += [
        Entry("For 30 minutes", SetDnd("30m").encode()),
        Entry("For 1 hour", SetDnd("1h").encode()),
        Entry(f"Until tomorrow, {snapshot.morning:%H:%M}", SetDnd("tomorrow").encode()),
        SEPARATOR,
        Entry(quiet, TOGGLE_QUIET_HOURS.encode(), checked=snapshot.quiet_hours_enabled),
    ]
    return Entry("Do not disturb", children=tuple(entries))


def _agents(snapshot: TraySnapshot) -> Entry:
    rows = []
    for row in snapshot.agents:
        running = row.state in RUNNING_STATES
        sign_in = tuple(
            Entry(plain_line(label, MENU_TEXT_LIMIT) or "(unnamed)", action) for action, label in row.sign_in
        )
        doing = tuple(Entry(plain_line(line, MENU_TEXT_LIMIT)) for line in row.doing[:MAX_DOING])
        notes = tuple(Entry(note) for note in row.notes)
        actions = (
            *((*doing, *notes, SEPARATOR) if doing or notes else ()),
            *((Entry("Sign in", children=sign_in), SEPARATOR) if sign_in else ()),
            Entry("Restart", AgentAction("restart", row.name).encode()),
            Entry("Stop", AgentAction("stop", row.name).encode() if running else None),
            Entry("Start", None if running else AgentAction("start", row.name).encode()),
        )
        state = "waits for you" if row.needs_you else row.state.value
        rows.append(Entry(f"{plain_line(row.name, NAME_LIMIT)} — {state}", children=actions, icon=row.icon))
    add = Entry("Add agent…", OpenWindow("agents").encode())
    return Entry("Agents", children=(*(tuple(rows) or (Entry("None configured"),)), SEPARATOR, add))


def menu_of(snapshot: TraySnapshot) -> tuple[Entry, ...]:
    total = len(snapshot.agents)
    header = f"{snapshot.connected}/{total} agents connected"
    dnd = f"Do not disturb: {snapshot.dnd.describe()}"
    return (
        Entry("Open acp-tray…", OpenWindow("overview").encode(), default=True),
        SEPARATOR,
        Entry(header),
        Entry(dnd),
        *_approvals(snapshot),
        SEPARATOR,
        _recent(snapshot),
        _dnd(snapshot),
        _agents(snapshot),
        SEPARATOR,
        Entry("Preferences…", OpenWindow("preferences").encode()),
        Entry("Open history", OpenWindow("history").encode()),
        Entry("Diagnostics…", OpenWindow("diagnostics").encode()),
        Entry("Quit", QUIT.encode()),
    )
