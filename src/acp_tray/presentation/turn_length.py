"""How long each prompt turn took, by the injected clock: from the session's queue reports (a turn
starts running, stops running) to its end, for `[turns] notify_after` (pure; the pump feeds it).

A session says "running" when a turn starts and "not running" just before its `TurnEnded`, in that
order on the one event queue. Work an agent starts by itself (ACP 2) has no start here: its length
is unknown (None), and so is that of a turn whose start came before acp-tray saw the session.
"""

from __future__ import annotations

from acp_tray.events import QueueChanged, TurnEnded
from acp_tray.presentation.clock import Clock

SessionRef = tuple[str, str]  # (agent, session id)


class TurnLengths:
    def __init__(self, clock: Clock) -> None:
        self._clock = clock
        self._started: dict[SessionRef, float] = {}  # the running turn's start (monotonic)
        self._lasted: dict[SessionRef, float] = {}  # the turn that just stopped running: its length

    def queue_changed(self, event: QueueChanged) -> None:
        ref = (event.agent, event.session_id)
        now = self._clock.monotonic()
        if event.running:
            self._started.setdefault(ref, now)
        elif (start := self._started.pop(ref, None)) is not None:
            self._lasted[ref] = now - start

    def ended(self, event: TurnEnded) -> float | None:
        """The turn's length in seconds (None: unknown); forgotten once asked."""
        ref = (event.agent, event.session_id)
        lasted = self._lasted.pop(ref, None)
        if lasted is None and (start := self._started.pop(ref, None)) is not None:
            lasted = self._clock.monotonic() - start  # ended before its session said it stopped
        return lasted
