"""What the tray shows, as one immutable value handed from the daemon's loop to the tray thread."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from datetime import datetime, time

from acp_tray.events import AgentState, PermissionOption
from acp_tray.prefs.model import DndPrefs, QuietHours, SeverityClass
from acp_tray.presentation.dnd import DndState
from acp_tray.presentation.recent import RecentItem
from acp_tray.presentation.severity import SEVERITY_RANK, severity_class


@dataclass(frozen=True)
class AgentRow:
    name: str
    state: AgentState
    detail: str = ""
    icon: str | None = None  # its SVG file (agents from the ACP Registry)
    sign_in: tuple[tuple[str, str], ...] = ()  # while it needs a sign-in: (action id, method name)
    needs_you: bool = False  # it waits for the person (a session's state, a subagent, a request open)
    doing: tuple[str, ...] = ()  # what its sessions do, a line each: progress, a silence, subagents
    notes: tuple[str, ...] = ()  # its sessions' titles and usage, its cost today, its rate limits


@dataclass(frozen=True)
class ApprovalRow:
    """A permission request waiting for the person: answered with `approval:ID:OPTION_ID`."""

    approval_id: str
    agent: str
    title: str
    options: tuple[PermissionOption, ...]
    details: tuple[str, ...] = ()  # "Runs: …", "Touches: …", "Kind: …"
    subagent: str = ""  # asked by a subagent of the agent's: its name


@dataclass(frozen=True)
class QuestionRow:
    """A question waiting for the person, with the (action id, label) pairs that answer it."""

    question_id: str
    agent: str
    message: str
    actions: tuple[tuple[str, str], ...]
    subagent: str = ""  # asked by a subagent of the agent's: its name


@dataclass(frozen=True)
class TraySnapshot:
    agents: tuple[AgentRow, ...] = ()
    dnd: DndState = dataclasses.field(default_factory=lambda: DndState(False))
    quiet_hours_enabled: bool = False
    recent: tuple[RecentItem, ...] = ()  # newest first
    missed_during_dnd: int = 0
    approvals: tuple[ApprovalRow, ...] = ()  # oldest first
    questions: tuple[QuestionRow, ...] = ()  # oldest first
    today: str = ""  # what today cost across agents ("0.027 USD"; "": nothing reported)
    morning: time = DndPrefs().morning  # when "Until tomorrow" ends
    quiet_hours: tuple[time, time] = (QuietHours().start, QuietHours().end)  # the schedule's start and end
    # when this was taken (how old a Recent item is); like `DndState.at`, not part of what it shows
    at: datetime | None = dataclasses.field(default=None, compare=False)

    @property
    def unread(self) -> int:
        return sum(item.unread for item in self.recent)

    @property
    def connected(self) -> int:
        return sum(row.state is AgentState.CONNECTED for row in self.agents)

    @property
    def waiting_for_you(self) -> int:
        """Agents waiting for the person."""
        return sum(row.needs_you for row in self.agents)


def badge_of(snapshot: TraySnapshot) -> str:
    """The badge: the most severe *unread* item's class ("none", "info", "warning", "error", "other"),
    and at least "warning" while an approval or a question is pending (a person is needed)."""
    classes: list[SeverityClass] = [severity_class(item.kind) for item in snapshot.recent if item.unread]
    if snapshot.approvals or snapshot.questions or snapshot.waiting_for_you:
        classes.append("warning")
    return max(classes, key=SEVERITY_RANK.__getitem__) if classes else "none"


def tooltip_of(snapshot: TraySnapshot) -> str:
    """One line: "1 awaiting approval · 1 question · 3 unread · 2/3 agents connected · DND until 14:00"."""
    waiting = snapshot.waiting_for_you
    parts = [f"{waiting} agent{'s wait' if waiting != 1 else ' waits'} for you"] if waiting else []
    if snapshot.approvals:
        parts.append(f"{len(snapshot.approvals)} awaiting approval")
    if snapshot.questions:
        n = len(snapshot.questions)
        parts.append(f"{n} question" if n == 1 else f"{n} questions")
    parts.append(f"{snapshot.unread} unread" if snapshot.unread else "nothing unread")
    total = len(snapshot.agents)
    parts.append(
        f"{snapshot.connected}/{total} agents connected" if total != 1 else f"{snapshot.connected}/1 agent connected"
    )
    if snapshot.today:
        parts.append(f"today {snapshot.today}")
    if snapshot.dnd.active:
        parts.append(f"DND until {snapshot.dnd.until:%H:%M}" if snapshot.dnd.until else "DND on")
    return "acp-tray · " + " · ".join(parts)
