"""The tray menu as plain data, built from a snapshot (pure: the pystray adapter only maps it).

Each actionable entry carries an action id that the tray hands back to the daemon's loop:
`approval:ID:OPTION_ID`, `recent:open:GROUP`, `recent:read-all`, `recent:clear`, `dnd:off`,
`dnd:30m`, `dnd:1h`, `dnd:tomorrow`, `quiet-hours:toggle`, `agent:start|stop|restart:NAME`,
`signin:["NAME","METHOD"]`, `prefs:open`, `history:open`, `quit`. Only three kinds reach an
agent: `approval:…` answers the permission request ID with the option OPTION_ID (one the agent
itself offered), `signin:…` signs in with a method the agent itself offered, and
start/stop/restart manage the agent process itself.
"""

from __future__ import annotations

from dataclasses import dataclass

from acp_tray.events import AgentState
from acp_tray.presentation.options import option_label as kind_first_label
from acp_tray.presentation.recent import RecentItem
from acp_tray.presentation.text import NAME_LIMIT, plain_line
from acp_tray.protocol.notice import SeverityKind
from acp_tray.tray.snapshot import ApprovalRow, TraySnapshot

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


@dataclass(frozen=True)
class Entry:
    label: str
    action: str | None = None  # None: a label, not clickable
    checked: bool | None = None  # None: not a check/radio item
    radio: bool = False
    children: tuple[Entry, ...] = ()
    icon: str | None = None  # an SVG file shown beside the label, where the tray backend can

    @property
    def enabled(self) -> bool:
        return self.action is not None or bool(self.children)


SEPARATOR = Entry("-")


def recent_label(item: RecentItem) -> str:
    mark = "• " if item.unread else ""
    count = f" ×{item.count}" if item.count > 1 else ""
    text = plain_line(f"{plain_line(item.agent, NAME_LIMIT)}: {item.title}", MENU_TEXT_LIMIT)
    return f"{mark}{GLYPH[item.kind]} {text}{count}"


def approval_label(row: ApprovalRow) -> str:
    return plain_line(f"{plain_line(row.agent, NAME_LIMIT)}: {row.title}", MENU_TEXT_LIMIT)


def option_label(name: str, kind: str) -> str:
    """The option's kind, then its name ("✔ Allow always: Deny"): see `presentation.options`."""
    return kind_first_label(name, kind, MENU_TEXT_LIMIT)


def _approvals(snapshot: TraySnapshot) -> tuple[Entry, ...]:
    """The "Needs approval (N)" entry: a submenu per pending request, an entry per option; none if none."""
    if not snapshot.approvals:
        return ()
    rows = []
    for row in snapshot.approvals[:MAX_APPROVALS]:
        options = tuple(
            Entry(option_label(option.name, option.kind), f"approval:{row.approval_id}:{option.option_id}")
            for option in row.options[:MAX_OPTIONS]
        )
        rows.append(Entry(approval_label(row), children=options or (Entry("No options offered"),)))
    hidden = len(snapshot.approvals) - MAX_APPROVALS
    if hidden > 0:
        rows.append(Entry(f"… and {hidden} more"))
    return (Entry(f"Needs approval ({len(snapshot.approvals)})", children=tuple(rows)),)


def _recent(snapshot: TraySnapshot) -> Entry:
    items = tuple(Entry(recent_label(item), f"recent:open:{item.group}") for item in snapshot.recent)
    if not items:
        items = (Entry("Nothing yet"),)
    title = f"Recent ({snapshot.unread} unread)" if snapshot.unread else "Recent"
    if snapshot.missed_during_dnd:
        title += f" · {snapshot.missed_during_dnd} held during DND"
    tail = (SEPARATOR, Entry("Mark all read", "recent:read-all"), Entry("Clear list", "recent:clear"))
    return Entry(title, children=items + tail)


def _dnd(snapshot: TraySnapshot) -> Entry:
    state = snapshot.dnd
    manual = state.active and state.reason == "manual"
    entries = [Entry("Off", "dnd:off", checked=not manual, radio=True)]
    if manual:
        label = f"On, until {state.until:%a %H:%M}" if state.until else "On"
        entries.append(Entry(label, None, checked=True, radio=True))
    entries += [
        Entry("For 30 minutes", "dnd:30m"),
        Entry("For 1 hour", "dnd:1h"),
        Entry("Until tomorrow", "dnd:tomorrow"),
        SEPARATOR,
        Entry("Quiet hours schedule", "quiet-hours:toggle", checked=snapshot.quiet_hours_enabled),
    ]
    return Entry("Do not disturb", children=tuple(entries))


def _agents(snapshot: TraySnapshot) -> Entry:
    rows = []
    for row in snapshot.agents:
        running = row.state in (AgentState.STARTING, AgentState.CONNECTED, AgentState.NEEDS_SIGNIN)
        sign_in = tuple(
            Entry(plain_line(label, MENU_TEXT_LIMIT) or "(unnamed)", action) for action, label in row.sign_in
        )
        actions = (
            *((Entry("Sign in", children=sign_in), SEPARATOR) if sign_in else ()),
            Entry("Restart", f"agent:restart:{row.name}"),
            Entry("Stop", f"agent:stop:{row.name}" if running else None),
            Entry("Start", None if running else f"agent:start:{row.name}"),
        )
        rows.append(Entry(f"{plain_line(row.name, NAME_LIMIT)} — {row.state.value}", children=actions, icon=row.icon))
    return Entry("Agents", children=tuple(rows) or (Entry("None configured"),))


def menu_of(snapshot: TraySnapshot) -> tuple[Entry, ...]:
    total = len(snapshot.agents)
    header = f"{snapshot.connected}/{total} agents connected"
    dnd = f"Do not disturb: {snapshot.dnd.describe()}"
    return (
        Entry(header),
        Entry(dnd),
        *_approvals(snapshot),
        SEPARATOR,
        _recent(snapshot),
        _dnd(snapshot),
        _agents(snapshot),
        SEPARATOR,
        Entry("Preferences…", "prefs:open"),
        Entry("Open history", "history:open"),
        Entry("Diagnostics…", "diagnostics"),
        Entry("Quit", "quit"),
    )
