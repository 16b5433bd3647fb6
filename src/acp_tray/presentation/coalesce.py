"""Coalescing: identical notices within a window become one presentation with a count.

Identity for this purpose is local and content-based (agent, severity, title, description; for
acp-tray's own notices the session too): the protocol gives notices no identity. The window
slides: each repeat extends it. State is bounded: expired groups are dropped and at most
`max_groups` are kept.
"""

from __future__ import annotations

from collections import OrderedDict
from dataclasses import dataclass
from itertools import count

Key = tuple[object, ...]  # what makes two notices repeats of each other (hashable)

DEFAULT_MAX_GROUPS = 1024


@dataclass
class Group:
    id: int
    count: int
    last: float
    notified: bool = False  # a native notification shows it: a repeat updates that one, silently


class Coalescer:
    def __init__(self, max_groups: int = DEFAULT_MAX_GROUPS) -> None:
        self._groups: OrderedDict[Key, Group] = OrderedDict()  # least recently seen first
        self._max_groups = max_groups
        self._ids = count(1)

    def new_id(self) -> int:
        """A fresh local id for a presentation that is never coalesced (e.g. a summary)."""
        return next(self._ids)

    def __len__(self) -> int:
        return len(self._groups)

    def add(self, key: Key, now: float, window: float) -> Group:
        """Record one arrival; a fresh group (count 1) unless a live one matches."""
        while self._groups:
            oldest = next(iter(self._groups.values()))
            if now - oldest.last <= window:
                break
            self._groups.popitem(last=False)
        group = self._groups.get(key) if window > 0 else None
        if group is not None:
            group.count += 1
            group.last = now
            self._groups.move_to_end(key)
            return group
        group = Group(next(self._ids), 1, now)
        if window > 0:
            self._groups[key] = group
            if len(self._groups) > self._max_groups:
                self._groups.popitem(last=False)
        return group
