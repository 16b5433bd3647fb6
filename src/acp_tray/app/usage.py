"""The usage keeper: takes the agents' usage, title and compaction reports (and the turns' starts
and ends) into the usage book, says which rate-limit report calls for a notice, and keeps today's
totals on disk: written a few seconds after they change (a flood of reports is one write) and
when the daemon stops."""

from __future__ import annotations

import logging
from collections.abc import Callable
from datetime import date
from pathlib import Path

from acp_tray.events import QueueChanged, SessionAttached, SessionFact, UsageReported
from acp_tray.prefs.model import Preferences
from acp_tray.presentation.clock import Clock
from acp_tray.presentation.limits import LimitWatch
from acp_tray.presentation.usage_book import UsageBook
from acp_tray.protocol.notice import Notice
from acp_tray.state.usage_totals import load_totals, save_totals
from acp_tray.timer import OneTimer

log = logging.getLogger(__name__)

SAVE_AFTER = 5.0  # seconds after the day's totals changed


class UsageKeeper:
    def __init__(self, path: Path | None, clock: Clock, prefs: Callable[[], Preferences]) -> None:
        self._path = path
        self._clock = clock
        self._prefs = prefs
        today = clock.now().date()
        self.book = UsageBook(today, load_totals(path, today))
        self._limits = LimitWatch()
        self._save_timer = OneTimer()
        self._unsaved = False

    def day(self) -> date:
        return self._clock.now().date()

    def take(self, event: SessionFact | QueueChanged | SessionAttached) -> tuple[bool, Notice | None]:
        """Whether what a person sees changed, and the notice a rate limit calls for (or None)."""
        before = self.book.totals_changed
        changed = self.book.note(event, self.day())
        if self.book.totals_changed != before:
            self._saving()
        limit = event.usage.limit if isinstance(event, UsageReported) else None
        if limit is None:
            return changed, None
        return True, self._limits.notice(event.agent, limit, self._prefs().usage.warn_at, self._clock.now())

    def _saving(self) -> None:
        if self._path is None or self._unsaved:
            return
        self._unsaved = True
        self._save_timer.set(SAVE_AFTER, self.save)

    def save(self) -> None:
        self._save_timer.cancel()
        if self._path is None or not self._unsaved:
            return
        self._unsaved = False
        try:
            save_totals(self._path, self.book.today, self.book.totals)
        except OSError as exc:
            log.warning("could not keep today's usage in %s (%s); it is kept in memory", self._path, exc)

    def close(self) -> None:
        self.save()
