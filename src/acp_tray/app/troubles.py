"""Each agent's last problem, for the window and `status`: what went wrong (a crash, a failed start,
a refusal), the last lines it wrote on stderr, and when. Kept after the agent runs again (it says
what happened last), forgotten when the agent is removed. A crash loop that is given up on keeps
the last crash's reason and stderr beside "stopped after N crashes in a row"."""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta

from acp_tray.agents.stderr import without_hint
from acp_tray.events import AgentCrashed, AgentState, AgentStatus

STDERR_LINES = 10  # shown of a problem
FAILURES = (AgentState.FAILED, AgentState.REFUSED)  # an exit is told by the crash that follows it
IN_A_ROW = timedelta(minutes=10)  # a failed start this soon after a crash: that crash loop's count goes on


@dataclass(frozen=True)
class Trouble:
    what: str
    stderr: tuple[str, ...]
    time: datetime
    crash: bool = False  # a crash the agent was not started again after (yet)
    crashes: int = 0  # crashes in a row (the supervisor's count), this one included


class Troubles:
    def __init__(self) -> None:
        self._last: dict[str, Trouble] = {}

    def of(self, agent: str) -> Trouble | None:
        return self._last.get(agent)

    def crashed(self, event: AgentCrashed) -> None:
        """A crash, counted as the supervisor counts its loop (`in_a_row`)."""
        stderr = tuple(event.stderr[-STDERR_LINES:])
        self._last[event.agent] = Trouble(without_hint(event.detail), stderr, event.time, True, event.in_a_row)

    def status(self, status: AgentStatus, stderr: Sequence[str]) -> None:
        """A new status; `stderr`: the last lines of the agent's current run."""
        previous = self._last.get(status.agent)
        if status.state is AgentState.STARTING and previous is not None and previous.crash:
            self._last[status.agent] = dataclasses.replace(previous, crash=False)  # a new run: its own story
        if status.state not in FAILURES:
            return
        what = without_hint(status.detail) or status.state.value
        crashes = previous.crashes if previous is not None and status.time - previous.time < IN_A_ROW else 0
        if previous is not None and previous.crash:  # given up right after a crash: that crash is why
            trouble = Trouble(f"{what} (the last: {previous.what})", previous.stderr, status.time, crashes=crashes)
        else:  # a crash loop's failed start counts on
            trouble = Trouble(what, tuple(stderr[-STDERR_LINES:]), status.time, crashes=crashes)
        self._last[status.agent] = trouble

    def forget(self, agents: set[str]) -> None:
        """Keep only `agents` (the ones configured)."""
        for name in [name for name in self._last if name not in agents]:
            del self._last[name]
