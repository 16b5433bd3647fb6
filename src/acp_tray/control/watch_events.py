"""The `watch` op's streamed events: a snapshot of the daemon's state, then what changed, and each new
history record, until the client goes (its declaration in control/api.py). Standard library only, as
the API itself."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, ClassVar, TypedDict

from acp_tray.control.replies import SPREAD, AgentRow, ApprovalRow, CostRow, PushTargetRow, QuestionRow, SessionRow


class WatchState(TypedDict, total=False):  # `watch`: all of it in a snapshot, what changed in a change
    dnd: str
    morning: str
    unread: int
    agents: list[AgentRow]
    approvals: list[ApprovalRow]
    questions: list[QuestionRow]
    sessions: list[SessionRow]
    today: list[CostRow]
    preferences: str  # the preferences file's version (`prefs.get`): it changes with each edit
    push: list[PushTargetRow]  # the push targets (`push.list`'s rows, as last read: never a URL)


@dataclass(frozen=True)
class Snapshot:  # `watch`: the whole state; first, and again for a client that fell behind
    kind: ClassVar[str] = "snapshot"
    state: WatchState = field(metadata=SPREAD)


@dataclass(frozen=True)
class Changes:  # `watch`: what changed since the last event (never nothing)
    kind: ClassVar[str] = "change"
    state: WatchState = field(metadata=SPREAD)


@dataclass(frozen=True)
class HistoryAdded:  # `watch`: a new history record, as `acp-tray history --json` prints it
    kind: ClassVar[str] = "history"
    record: dict[str, Any]


WatchEvent = Snapshot | Changes | HistoryAdded
