"""Waiting for an agent to connect (`agents wait`): what one look at the fleet tells, once its host
runs the awaited command: it connected, its run ended and none follows, it is gone, or not yet.
The fleet looks again at each of its status changes (`Fleet.until_connected`), never on a tick."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from acp_tray.events import AgentState, AgentStatus

if TYPE_CHECKING:
    from acp_tray.agents.host import AgentHost

ABSENT_GRACE = 5.0  # s: an agent being restarted has no host for a moment
ENDED = (AgentState.FAILED, AgentState.EXITED)


@dataclass(frozen=True)
class Arrival:
    """How a wait for an agent ended: `connected` (it answered the ACP `initialize`), `ready` (and
    has its session: no sign-in waits), its state and the detail of its last status."""

    connected: bool
    ready: bool
    state: AgentState
    detail: str


class Connecting:
    """One wait, from `now` for `timeout` seconds, for the agent's host running `command` (None:
    whatever it runs) to connect. `before`: the agent's status when the wait began, which is not
    its run's (a status from before the awaited host runs)."""

    def __init__(self, command: list[str] | None, before: AgentStatus | None, now: float, timeout: float) -> None:
        self._command = command
        self._before = before
        self.deadline = now + timeout
        self.absent_until = now + ABSENT_GRACE

    def _ours(self, host: AgentHost | None) -> bool:
        return host is not None and (self._command is None or list(host.spec.command) == self._command)

    def _settled(self, status: AgentStatus | None) -> bool:
        """The awaited run has said how it went (a status of its own, past starting)."""
        return status is not None and status is not self._before and status.state is not AgentState.STARTING

    def _hopeless(self, host: AgentHost | None, status: AgentStatus | None, supervised: bool, now: float) -> bool:
        """It will not connect now: not running past the grace (stopped from the tray), or its run
        ended (maybe before this wait began) and none will follow."""
        if supervised:
            return False
        if host is None:
            return now >= self.absent_until
        return self._ours(host) and status is not None and status.state in ENDED

    def look(self, host: AgentHost | None, status: AgentStatus | None, supervised: bool, now: float) -> Arrival | None:
        """What the fleet shows now tells how the wait ends; None: not yet."""
        ours = self._ours(host)
        if not ours:
            self._before = status  # a status from before the awaited host runs
        settled = ours and self._settled(status)
        if host is not None and ours and (host.connected.is_set() or (host.speaks_acp and settled)):
            return _connected(host, status)
        if self._over(status, settled, now) or self._hopeless(host, status, supervised, now):
            return _not_connected(status)
        return None

    def _over(self, status: AgentStatus | None, settled: bool, now: float) -> bool:
        """The awaited run ended before it connected, or the time is up."""
        return (settled and status is not None and status.state in ENDED) or now >= self.deadline

    def next_look(self, now: float) -> float:
        """Seconds until the time alone changes what a look tells (the grace's end, the deadline)."""
        due = [t for t in (self.absent_until, self.deadline) if t > now]
        return max(0.0, min(due, default=0.0) - now)


def _connected(host: AgentHost, status: AgentStatus | None) -> Arrival:
    ready = host.connected.is_set()
    if status is None:
        return Arrival(True, ready, AgentState.CONNECTED, "")
    return Arrival(True, ready, status.state, "" if ready else status.detail)


def _not_connected(status: AgentStatus | None) -> Arrival:
    if status is None:
        return Arrival(False, False, AgentState.STOPPED, "")
    return Arrival(False, False, status.state, status.detail)
