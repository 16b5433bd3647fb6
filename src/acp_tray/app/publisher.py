"""The tray publisher: immutable snapshots of what the tray shows (throttled, and again when a
timed DND ends or a day begins), and a change feed for whoever follows the daemon's state (`subscribe`)."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime, time, timedelta
from enum import StrEnum
from typing import Any

from acp_tray.agents.approvals import Approvals
from acp_tray.agents.questions import Questions
from acp_tray.app.attention import doing_lines, waiting
from acp_tray.app.fleet import Fleet
from acp_tray.events import AgentState
from acp_tray.presentation.actions import SignIn
from acp_tray.presentation.approval_details import approval_details
from acp_tray.presentation.dnd import DndState
from acp_tray.presentation.question_notice import question_actions
from acp_tray.presentation.recent import Recent
from acp_tray.presentation.router import Router
from acp_tray.presentation.usage_book import UsageBook
from acp_tray.presentation.usage_words import agent_notes, spent_words
from acp_tray.timer import OneTimer
from acp_tray.tray.snapshot import AgentRow, ApprovalRow, QuestionRow, TraySnapshot

log = logging.getLogger(__name__)

PUBLISH_EVERY = 0.2  # seconds between two snapshots for the tray, at most
NEW_DAY_MARGIN = 1.0  # s after midnight: the clock that timed it is surely past it

Publisher = Callable[[TraySnapshot], None]


class Changed(StrEnum):
    AGENTS = "agents"  # an agent's state, or the agents configured
    SESSIONS = "sessions"  # a session attached, a prompt queued, a turn started or ended
    APPROVALS = "approvals"  # and questions
    DND = "dnd"
    UNREAD = "unread"  # the Recent list (its unread count)
    HISTORY = "history"  # a new history record: `record` holds it
    USAGE = "usage"  # a session's usage, cost, title or compaction, or a rate limit
    PUSH = "push"  # a push target added or removed


@dataclass(frozen=True, slots=True)
class Change:
    what: Changed
    record: dict[str, Any] | None = None


Listener = Callable[[Change], None]


class TrayPublisher:
    def __init__(
        self,
        router: Router,
        recent: Recent,
        approvals: Approvals,
        questions: Questions,
        fleet: Fleet,
        publishers: Sequence[Publisher],
        usage: UsageBook | None = None,
    ) -> None:
        self._router = router
        self._recent = recent
        self._approvals = approvals
        self._questions = questions
        self._fleet = fleet
        self._publishers = tuple(publishers)
        self._usage = usage
        self._listeners: list[Listener] = []
        self._dnd: DndState | None = None  # as last told to the listeners
        self._dnd_timer = OneTimer()
        self._day_timer = OneTimer()
        self._publish_timer: asyncio.TimerHandle | None = None
        self._usage_timer = OneTimer()
        self._usage_due = False
        self._last_publish = float("-inf")

    def snapshot(self) -> TraySnapshot:
        now = self._router.clock.now()
        dnd = self._router.prefs.dnd
        return TraySnapshot(
            agents=self._agent_rows(now),
            dnd=self._router.dnd(),
            quiet_hours_enabled=dnd.quiet_hours.enabled,
            recent=self._recent.items(),
            missed_during_dnd=self._router.missed_during_dnd,
            approvals=tuple(
                ApprovalRow(
                    p.approval_id,
                    p.agent,
                    p.title,
                    p.options,
                    details=tuple(approval_details(p.scope, p.description)),
                    subagent=p.subagent,
                )
                for p in self._approvals.pending()
            ),
            questions=tuple(
                QuestionRow(
                    q.question_id, q.agent, q.question.message, question_actions(q.question_id, q.question), q.subagent
                )
                for q in self._questions.pending()
            ),
            today=spent_words(self._usage.all_today(now.date())) if self._usage is not None else "",
            morning=dnd.morning,
            quiet_hours=(dnd.quiet_hours.start, dnd.quiet_hours.end),
            at=now,
        )

    def _agent_rows(self, now: datetime) -> tuple[AgentRow, ...]:
        """Each configured agent: its state, what it needs (a sign-in, the person), what its sessions
        do, and its notes (titles, usage, cost, limits)."""
        rows = []
        fleet = self._fleet
        found = waiting(fleet.hosts, self._approvals, self._questions)
        for name in self._router.prefs.agents:
            status = fleet.states.get(name)
            icon = fleet.icons.get(name)
            host = fleet.hosts.get(name)
            notes = self._notes(name, now)
            if status is None:
                rows.append(AgentRow(name, AgentState.STOPPED, icon=icon, notes=notes))
                continue
            sign_in: tuple[tuple[str, str], ...] = ()
            if status.state is AgentState.NEEDS_SIGNIN and host is not None:
                sign_in = tuple(
                    (SignIn(name, m.method_id).encode(), m.name) for m in host.signin.methods if host.signin.doable(m)
                )
            rows.append(
                AgentRow(
                    name,
                    status.state,
                    status.detail,
                    icon=icon,
                    sign_in=sign_in,
                    needs_you=name in found.agents,
                    doing=doing_lines(host, found, now) if host is not None else (),
                    notes=notes,
                )
            )
        return tuple(rows)

    def _notes(self, agent: str, now: datetime) -> tuple[str, ...]:
        host = self._fleet.hosts.get(agent)
        if self._usage is None or host is None:
            return ()
        return agent_notes(self._usage, agent, (s.session_id for s in host.sessions.values()), now)

    def publish(self) -> None:
        """Hand the tray a snapshot now, or (within PUBLISH_EVERY of the last) once at the end of
        that interval: a flood of notices means a few menu rebuilds, not one per notice."""
        if not self._publishers or self._publish_timer is not None:
            return
        loop = asyncio.get_running_loop()
        wait = self._last_publish + PUBLISH_EVERY - loop.time()
        if wait > 0:
            self._publish_timer = loop.call_later(wait, self.publish_now)
            return
        self.publish_now()

    def publish_now(self) -> None:
        """At once (what the person did shows immediately)."""
        if not self._publishers:
            return
        if self._publish_timer is not None:
            self._publish_timer.cancel()
        self._publish_timer = None
        self._last_publish = asyncio.get_running_loop().time()
        snapshot = self.snapshot()
        for publisher in self._publishers:
            try:
                publisher(snapshot)
            except Exception:
                log.exception("the tray could not take a snapshot")
        self._schedule_dnd_end(snapshot.dnd)
        self._schedule_new_day(snapshot.at if snapshot.recent else None)

    def _schedule_dnd_end(self, dnd: DndState) -> None:
        """Publish again when DND ends, so the tray never shows a stale state (a timer, no polling)."""
        delay = None
        if dnd.active and dnd.until is not None:
            delay = max(0.0, (dnd.until - self._router.clock.now()).total_seconds()) + 0.05
        self._dnd_timer.set(delay, self._dnd_ended)

    def _schedule_new_day(self, now: datetime | None) -> None:
        """Publish again just after the next midnight (`now`: the snapshot's time; None: nothing
        to age): Recent's "14:03" is then yesterday's "Tue 14:03" (a timer, no polling)."""
        delay = None
        if now is not None:
            midnight = datetime.combine(now.date() + timedelta(days=1), time(), tzinfo=now.tzinfo)
            delay = (midnight - now).total_seconds() + NEW_DAY_MARGIN
        self._day_timer.set(delay, self.publish_now)

    def _dnd_ended(self) -> None:
        self.publish_now()
        self.dnd_may_have_changed()

    def close(self) -> None:
        self._usage_timer.cancel()
        self._dnd_timer.cancel()
        self._day_timer.cancel()
        if self._publish_timer is not None:
            self._publish_timer.cancel()

    # the change feed ----------------------------------------------------------------------

    def subscribe(self, listener: Listener) -> Callable[[], None]:
        """`listener` is called on the loop with each change a status reader would see, until the
        returned function is called."""
        self._listeners.append(listener)
        if self._dnd is None:
            self._dnd = self._router.dnd()
            if not self._publishers:
                self._schedule_dnd_end(self._dnd)

        def unsubscribe() -> None:
            if listener in self._listeners:
                self._listeners.remove(listener)

        return unsubscribe

    def changed(self, what: Changed, record: dict[str, Any] | None = None) -> None:
        if not self._listeners:
            return
        change = Change(what, record)
        for listener in tuple(self._listeners):
            try:
                listener(change)
            except Exception:
                log.exception("a change listener failed")

    def usage_changed(self) -> None:
        """Usage changed (a session's figures, a title, a rate limit): the listeners are told at most
        once per PUBLISH_EVERY, and the tray is given a snapshot as throttled as ever, so that a
        flood of usage reports (one per model call, per agent) costs a few updates a second."""
        self.publish()
        if not self._listeners or self._usage_due:
            return
        self._usage_due = True
        self._usage_timer.set(PUBLISH_EVERY, self._tell_usage)

    def _tell_usage(self) -> None:
        self._usage_due = False
        self.changed(Changed.USAGE)

    def dnd_may_have_changed(self) -> None:
        """The preferences were applied, or a timed DND came to its end: tell the listeners if DND
        is not what they were last told."""
        if not self._listeners:
            return
        dnd = self._router.dnd()
        if dnd != self._dnd:
            self._dnd = dnd
            self.changed(Changed.DND)
        if not self._publishers:
            self._schedule_dnd_end(dnd)
