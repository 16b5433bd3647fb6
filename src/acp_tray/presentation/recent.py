"""The tray's "Recent" list: the newest presented items, coalesced repeats updated in place.

Bounded (oldest dropped), local only: reading, clearing or dismissing changes nothing
anywhere but here.
"""

from __future__ import annotations

import dataclasses
from collections import OrderedDict
from dataclasses import dataclass
from datetime import datetime

from acp_tray.presentation.actions import WindowPage, page_for
from acp_tray.presentation.router import Presentation
from acp_tray.protocol.notice import SeverityKind

DEFAULT_SIZE = 15
CLICKABLE = 500  # notifications whose click still knows what it is about, long after the list let them go


@dataclass(frozen=True)
class RecentItem:
    group: int
    agent: str
    severity: str
    kind: SeverityKind
    title: str
    description: str | None
    count: int
    time: datetime
    unread: bool
    source: str
    opens: WindowPage = "history"  # where a click on its notification opens the window


@dataclass(frozen=True)
class Opens:
    """Where a click on a notification opens the window, and the time of its entry in the history."""

    page: WindowPage
    time: datetime


class Recent:
    def __init__(self, size: int = DEFAULT_SIZE, clickable: int = CLICKABLE) -> None:
        self._size = size
        self._items: OrderedDict[int, RecentItem] = OrderedDict()  # oldest first
        self._clickable = clickable
        self._opens: OrderedDict[int, Opens] = OrderedDict()  # a notification centre keeps them longer

    def add(self, p: Presentation) -> None:
        opens = Opens(page_for(p.actions), p.time)
        self._items.pop(p.group, None)
        self._items[p.group] = RecentItem(
            p.group, p.agent, p.severity, p.kind, p.title, p.description, p.count, p.time, True, p.source,
            opens.page,
        )  # fmt: skip
        while len(self._items) > self._size:
            self._items.popitem(last=False)
        self._opens.pop(p.group, None)
        self._opens[p.group] = opens
        while len(self._opens) > self._clickable:
            self._opens.popitem(last=False)

    def opens(self, group: int) -> Opens | None:
        """Where notification `group`'s click opens, while one of the last CLICKABLE (Recent's
        clearing, or its 15, does not forget it: the notification may still be on screen)."""
        return self._opens.get(group)

    def mark_read(self, group: int) -> bool:
        item = self._items.get(group)
        if item is None or not item.unread:
            return False
        self._items[group] = dataclasses.replace(item, unread=False)
        return True

    def mark_all_read(self) -> None:
        for group in list(self._items):
            self.mark_read(group)

    def remove(self, groups: list[int]) -> bool:
        """Take these items out (what they said is no longer so); whether any was there."""
        return sum(self._items.pop(group, None) is not None for group in groups) > 0

    def clear(self) -> None:
        self._items.clear()

    def items(self) -> tuple[RecentItem, ...]:
        """Newest first."""
        return tuple(reversed(self._items.values()))

    def unread(self) -> int:
        return sum(item.unread for item in self._items.values())
