"""What the pages show, in plain words, from what the control API says: agents with their state
and the reason, approvals with their options labelled as the tray labels them, DND and its quick
choices, history rows, diagnostics. Pure functions of the daemon's replies: the templates only lay them out."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from acp_tray.agent_state import RUNNING_STATES
from acp_tray.control import replies, watch_events
from acp_tray.doctor.check import MARK
from acp_tray.local_time import now
from acp_tray.prefs.urls import openable
from acp_tray.presentation.doing import session_doing
from acp_tray.presentation.options import option_label
from acp_tray.presentation.when import dated_label
from acp_tray.window.plain import agent_detail, said
from acp_tray.window.signin_view import SignInChoice, sign_in_choices

OPTION_LIMIT = 80
STATE_WORDS = {
    "starting": "Starting…",
    "connected": "Connected",
    "failed": "Could not start",
    "refused": "Refused to open a session",
    "exited": "Stopped unexpectedly",
    "stopped": "Stopped",
    "needs sign-in": "Needs sign-in",
}
TROUBLED = ("failed", "refused", "exited")  # states whose reason is the agent's last problem
STATE_TONE = {"connected": "ok", "starting": "busy", "needs sign-in": "warn", "stopped": "off"}
SEVERITY_CLASSES = ("error", "warning", "info", "other")
ROUTE_WORDS = {"both": "pop-up and tray", "notify": "pop-up", "tray": "tray", "none": "history only"}
SUPPRESSED_WORDS = {
    "None": "",
    "dnd": "held back: do not disturb",
    "rate_limited": "held back: too many at once",
    "coalesced": "a repeat, counted on the first",
    "muted": "agent muted",
    "short_turn": "a short turn: listed, no pop-up",
    "told": "told at an earlier start: no pop-up",
    "replayed": "replayed history: not a new notice",
}
DND_CHOICES = (
    ("off", "", "Off"),
    ("for", "30m", "30 minutes"),
    ("for", "1h", "1 hour"),
    ("on", "", "Until I turn it off"),
)


@dataclass(frozen=True)
class ProblemView:
    what: str  # in plain words
    stderr: list[str]
    when: str  # "16:42", "Yesterday 16:42", "3 Dec 16:42"
    time: str  # ISO 8601, for <time datetime>
    technical: list[str] = field(default_factory=list)  # its error code: behind "Details"


@dataclass(frozen=True)
class AgentView:
    name: str
    state: str
    words: str
    tone: str
    detail: str  # in plain words ("" when all of it is technical)
    target: str
    sessions: int
    busy: int
    queued: int
    running: bool
    sign_in: list[SignInChoice]
    usage: list[str]  # its cost today and its rate limits, in words
    problem: ProblemView | None
    troubled: bool  # its last problem is why it is not running now: shown opened
    sign_in_links: list[replies.SignInLinkRow] = field(default_factory=list)  # to open while its sign-in waits
    reads_code: bool = False  # that sign-in reads a code on its input: the page offers a field for it
    technical: list[str] = field(default_factory=list)  # its session id and protocol version: behind "Details"


@dataclass(frozen=True)
class OptionView:
    id: str
    label: str
    allows: bool


@dataclass(frozen=True)
class ApprovalView:
    id: str
    agent: str
    title: str
    options: list[OptionView]
    details: list[str]  # "Runs: …", "Touches: …", "Kind: …"
    subagent: str = ""  # asked by a subagent of the agent's: its name


def problem_view(row: replies.ProblemRow | None, seen: datetime) -> ProblemView | None:
    if row is None:
        return None
    try:
        when = dated_label(datetime.fromisoformat(row["time"]), seen)
    except ValueError:
        when = row["time"]
    what = said(row["what"])
    return ProblemView(what.line, row["stderr"], when, row["time"], what.details)


def agent_view(row: replies.AgentRow, seen: datetime) -> AgentView:
    state = row["state"]
    detail = agent_detail(row["detail"])
    return AgentView(
        name=row["name"],
        state=state,
        words="Waits for you" if row["needs_you"] else STATE_WORDS.get(state, state.capitalize()),
        tone=STATE_TONE.get(state, "bad"),
        detail=detail.line,
        technical=detail.details,
        target=row["target"],
        sessions=row["sessions"],
        busy=row["busy"],
        queued=row["queued"],
        running=state in RUNNING_STATES,
        sign_in=sign_in_choices(row),
        sign_in_links=[link for link in row.get("sign_in_links", []) if openable(link["url"])],
        reads_code=row.get("reads_code", False),
        usage=usage_words(row),
        problem=problem_view(row.get("problem"), seen),
        troubled=state in TROUBLED,
    )


def usage_words(row: replies.AgentRow) -> list[str]:
    """ "today 0.027 USD", "90 % of the five-hour limit used; resets at 14:20"."""
    today = " + ".join(cost["text"] for cost in row.get("today", []))
    return ([f"today {today}"] if today else []) + [limit["text"] for limit in row.get("limits", [])]


def approval_view(row: replies.ApprovalRow) -> ApprovalView:
    options = [
        OptionView(o["id"], option_label(o["name"], o["kind"], OPTION_LIMIT), o["kind"].startswith("allow"))
        for o in row["options"]
    ]
    return ApprovalView(
        row["id"],
        row["agent"],
        row["title"],
        options,
        list(row.get("details", [])),
        subagent=row.get("subagent", ""),
    )


def session_view(row: replies.SessionRow, now: datetime) -> dict[str, Any]:
    """A session as the lists show it: its row (with its title, compaction and usage), and what it
    is doing in words (`doing`)."""
    return {**row, "doing": session_doing(row, now)}


def overview(state: watch_events.WatchState) -> dict[str, Any]:
    """Everything the overview shows, from the latest `watch` state."""
    seen = now()
    return {
        "agents": [agent_view(row, seen) for row in state.get("agents", [])],
        "approvals": [approval_view(row) for row in state.get("approvals", [])],
        "questions": state.get("questions", []),
        "sessions": [session_view(row, seen) for row in state.get("sessions", [])],
        "today": state.get("today", []),
        "dnd": state.get("dnd", ""),
        "dnd_on": bool(state.get("dnd", "off")) and not state.get("dnd", "off").startswith("off"),
        "dnd_choices": DND_CHOICES,
        "morning": state.get("morning", "08:00"),
        "unread": state.get("unread", 0),
    }


@dataclass(frozen=True)
class HistoryRow:
    key: str
    time: str
    day: str
    agent: str
    severity: str
    severity_class: str
    title: str
    description: str
    route: str
    why: str


def history_row(record: dict[str, Any], seen: datetime) -> HistoryRow | None:
    """One history record as a row (its time said as seen at `seen`); None for a line that is not a record."""
    if not isinstance(record, dict):
        return None
    at = str(record.get("time") or record.get("at") or "")
    try:
        when = datetime.fromisoformat(at)
        time, day = dated_label(when, seen), when.strftime("%Y-%m-%d %H:%M:%S")
    except ValueError:
        time, day = at, ""
    severity = str(record.get("severity") or "")
    severity_class = severity if severity in SEVERITY_CLASSES[:3] else "other"
    return HistoryRow(
        key=at,  # what a notification click names (its time): stable as the files rotate
        time=time,
        day=day,
        agent=str(record.get("agent") or ""),
        severity="malformed" if record.get("kind") == "malformed" else severity,
        severity_class=severity_class,
        title=str(record.get("title") or ""),
        description=str(record.get("description") or record.get("reason") or ""),
        route=ROUTE_WORDS.get(str(record.get("route")), "not shown"),
        why=SUPPRESSED_WORDS.get(str(record.get("suppressed")), str(record.get("suppressed") or "")),
    )


def matches(record: dict[str, Any], agent: str, severity: str, text: str) -> bool:
    """The history page's filters, for a record that arrives live."""
    row = history_row(record, now())
    if row is None:
        return False
    if agent and row.agent != agent:
        return False
    if severity and row.severity_class != severity:
        return False
    return not text or text.casefold() in f"{row.title}\n{row.description}".casefold()


CHECK_WORDS = {"problem": "Problem", "note": "Note", "ok": "Works"}


@dataclass(frozen=True)
class CheckView:
    name: str
    status: str
    words: str
    mark: str
    detail: str
    fix: str


def checks(rows: list[replies.CheckRow]) -> list[CheckView]:
    """`doctor`'s checks, problems first, each group in doctor's order (the order a person fixes things)."""
    ordered = sorted(rows, key=lambda row: row["status"] != "problem")  # a stable sort keeps that order
    return [
        CheckView(row["name"], status, CHECK_WORDS[status], MARK[status], row["detail"], row["fix"])
        for row in ordered
        if (status := row["status"]) in CHECK_WORDS
    ]
