"""What one hosted session is doing beyond its prompt queue: the agent's own state (v2
`state_update`), its subagents (child sessions it announced with `subagent_update`, each with its
title, kind and state, and the requests it has open with the person), its progress words ("reconnecting,
3 of 5"), and a silence: a running turn with no word from the agent for `silence_after` seconds.

A session waits for the person while the agent says `requires_action`, or one of its children
does, or one of its children has an approval or a question open. Its turn's end is held back while a
child waits (see `hold_end`): the parent is not "Finished" before the person answered the child.
Each change is said with `on_change` (one call, no payload: readers look at the fields). The silence
is one timer per running turn, re-armed from the last word only when it fires: a flood of updates costs a
clock read each.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from acp_tray.protocol.activity import SubagentChange, Unchanged
from acp_tray.timer import OneTimer

REQUIRES_ACTION = "requires_action"
MAX_CHILDREN = 100  # children kept per session; an agent announcing more has the oldest forgotten


@dataclass
class Child:
    """A subagent: the child session `session_id`, under its parent's session."""

    session_id: str
    title: str = ""
    kind: str = ""  # the parent's description of it (claude: its subagent type, "general-purpose")
    state: str = ""  # its last state snapshot ("" : not reported)
    asking: int = 0  # its approvals and questions open with the person

    @property
    def waiting(self) -> bool:
        return self.state == REQUIRES_ACTION or self.asking > 0

    @property
    def label(self) -> str:
        """How it is named to the person: its title, else its kind, else "a subagent"."""
        return self.title or self.kind or "a subagent"


class Activity:
    def __init__(self, on_change: Callable[[], None], silence_after: Callable[[], float]) -> None:
        self._on_change = on_change
        self._silence_after = silence_after  # seconds, as the preferences now say
        self.state = ""  # the agent's last `state_update` ("" : none on this connection)
        self.progress = ""  # the agent's own words on the running turn ("reconnecting, 3 of 5")
        self.silent_since: datetime | None = None  # a running turn's last word, once it is a silence
        self.children: dict[str, Child] = {}
        self._last_word = 0.0  # loop time (a wall-clock time only once it is a silence: one clock read an update)
        self._turn = False
        self._timer = OneTimer()
        self._held: list[Callable[[], None]] = []  # turn ends held while a child waits

    # what the agent says ---------------------------------------------------------------------

    def heard(self, *, progress: str | None = None, counts: bool = True) -> None:
        """Any update of this session (or one of its children): a word from the agent. `progress`:
        its own progress words; `counts` False: an update that is not the turn moving on (a title,
        usage), which keeps the progress shown."""
        self._last_word = asyncio.get_running_loop().time()
        changed = self.silent_since is not None
        self.silent_since = None
        if progress is not None:
            changed = changed or progress != self.progress
            self.progress = progress
        elif counts and self.progress:
            self.progress, changed = "", True
        if changed:
            self._on_change()

    def on_state(self, state: str) -> None:
        if state != self.state:
            self.state = state
            if state != "running":
                self.progress = ""
            self._changed()

    def on_child(self, change: SubagentChange) -> None:
        child = self.children.get(change.session_id)
        if child is None:
            if len(self.children) >= MAX_CHILDREN:
                del self.children[next(iter(self.children))]
            child = self.children[change.session_id] = Child(change.session_id)
        if not isinstance(change.title, Unchanged):
            child.title = change.title or ""
        if not isinstance(change.description, Unchanged):
            child.kind = change.description or ""
        if not isinstance(change.state, Unchanged):
            child.state = change.state or ""
        self._changed()

    def on_child_state(self, child_id: str, state: str) -> None:
        """A `state_update` on the child's own session (the same snapshot as its parent's mirror)."""
        child = self.children.get(child_id)
        if child is not None and child.state != state:
            child.state = state
            self._changed()

    def asking(self, child_id: str, delta: int) -> None:
        """A child's approval or question opened (+1) or ended (-1)."""
        child = self.children.get(child_id)
        if child is not None:
            child.asking = max(0, child.asking + delta)
            self._changed()

    # what follows ------------------------------------------------------------------------------

    @property
    def children_waiting(self) -> bool:
        return any(child.waiting for child in self.children.values())

    @property
    def waiting(self) -> bool:
        """The session waits for the person (as the agent says; open requests are counted by the
        readers, who hold them)."""
        return self.state == REQUIRES_ACTION or self.children_waiting

    def hold_end(self, end: Callable[[], None]) -> None:
        """Say a turn's end now, or once no child waits for the person any more."""
        if self.children_waiting:
            self._held.append(end)
        else:
            end()

    def turn_started(self) -> None:
        self._turn = True
        self.heard()
        self._arm(self._silence_after())

    def turn_ended(self) -> None:
        self._turn = False
        self._timer.cancel()
        if self.silent_since is not None or self.progress:
            self.silent_since, self.progress = None, ""
            self._on_change()

    def close(self) -> None:
        """The connection is gone: held ends are said (their turns ended), the timer stops."""
        self._timer.cancel()
        self._release()

    def _arm(self, delay: float) -> None:
        """The silence timer in `delay` seconds (0 or less: the preference is off)."""
        self._timer.set(delay if delay > 0 else None, self._quiet)

    def _quiet(self) -> None:
        """The timer: a silence if nothing came since it was set, else it waits from the last word."""
        after = self._silence_after()
        if not self._turn or after <= 0:
            return
        now = asyncio.get_running_loop().time()
        due = self._last_word + after - now
        if due > 0:
            self._arm(due)
            return
        self.silent_since = datetime.now(UTC) - timedelta(seconds=now - self._last_word)
        self._on_change()

    def _changed(self) -> None:
        if not self.children_waiting:
            self._release()
        self._on_change()

    def _release(self) -> None:
        held, self._held = self._held, []
        for end in held:
            end()
