"""Domain events: what the hosting layer reports, in arrival order, to presentation.

Events flow one way (agents -> presentation -> notifiers). Nothing here can reach an agent.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from datetime import datetime
from enum import StrEnum

from acp_tray.protocol.notice import Notice


def now() -> datetime:
    return datetime.now().astimezone()


@dataclass(frozen=True, slots=True, eq=False)
class NoticeReceived:
    agent: str
    session_id: str
    notice: Notice
    time: datetime = dataclasses.field(default_factory=now)


@dataclass(frozen=True, slots=True, eq=False)
class NoticeMalformed:
    agent: str
    session_id: str | None
    field: str
    reason: str
    raw: object
    time: datetime = dataclasses.field(default_factory=now)


class AgentState(StrEnum):
    STARTING = "starting"
    CONNECTED = "connected"
    FAILED = "failed"  # could not start or handshake failed
    EXITED = "exited"
    STOPPED = "stopped"  # stopped by acp-tray


@dataclass(frozen=True, slots=True, eq=False)
class AgentStatus:
    agent: str
    state: AgentState
    detail: str = ""
    time: datetime = dataclasses.field(default_factory=now)


Event = NoticeReceived | NoticeMalformed | AgentStatus
