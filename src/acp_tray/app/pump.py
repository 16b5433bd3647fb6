"""The event pump: takes the agents' events off the queue in order, routes notices (and acp-tray's
own, made from hosting events) to the history and the surfaces, offers them to push, and tells the
tray publisher. The history keeps the order of arrival (`app/history_order.py`); the desktop never
waits. A request's notification leaves the screen once settled, and those DND held back are shown
when it ends (`app/asked.py`), when the tray's count of what DND held back starts again too. A
sign-in notification leaves the screen once the agent is connected (signed in, here or elsewhere:
its topic is taken back, `app/topics.py`). A crash loop is one incident (one notification, updated
in place); one already told at an earlier start, with the same reason, is not popped up again
(`CrashRecord`)."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable

from acp_tray.app.asked import AskedOnScreen
from acp_tray.app.fleet import Fleet
from acp_tray.app.history_order import OrderedHistory
from acp_tray.app.publisher import Change, Changed, TrayPublisher
from acp_tray.app.surfaces import Surfaces
from acp_tray.app.topics import Topics
from acp_tray.app.usage import UsageKeeper
from acp_tray.events import (
    ActivityChanged,
    AgentCrashed,
    AgentState,
    AgentStatus,
    CompactionChanged,
    Event,
    NoticeMalformed,
    NoticeReceived,
    PermissionAsked,
    PermissionSettled,
    QuestionAsked,
    QuestionSettled,
    QueueChanged,
    SessionAttached,
    SessionFact,
    SessionTitled,
    SignInNeeded,
    SignInOutput,
    TurnEnded,
    UsageReported,
)
from acp_tray.presentation.own_notices import (
    CRASH,
    answered_from_phone,
    crash_reason,
    own_notice,
    sign_in_need_topic,
    sign_in_topic,
)  # fmt: skip
from acp_tray.presentation.question_notice import question_ended
from acp_tray.presentation.recent import Recent
from acp_tray.presentation.router import ACP_TRAY, Decision, Presentation, Router
from acp_tray.presentation.turn_length import TurnLengths
from acp_tray.protocol.notice import Notice
from acp_tray.push.pusher import Pushed, Pusher
from acp_tray.state.crash_record import CrashRecord
from acp_tray.state.history import HistoryWriter
from acp_tray.timer import OneTimer

log = logging.getLogger(__name__)

StatusSink = Callable[[AgentStatus], None]
_SESSION_EVENTS = (SessionAttached, QueueChanged, TurnEnded)
_ASKED = (PermissionAsked, QuestionAsked)  # a person is needed: shown, held by DND, withdrawn when settled
_SETTLED = (PermissionSettled, QuestionSettled)
_AGENT_EVENTS = (AgentStatus, SignInNeeded, SignInOutput, QueueChanged, ActivityChanged)  # `_agent_event`
_FACTS = (UsageReported, SessionTitled, CompactionChanged)  # what a session is doing: state, not notices


class EventPump:
    def __init__(
        self,
        queue: asyncio.Queue[Event],
        router: Router,
        history: HistoryWriter,
        surfaces: Surfaces,
        recent: Recent,
        fleet: Fleet,
        publisher: TrayPublisher,
        status: StatusSink,
        pusher: Pusher | None = None,
        usage: UsageKeeper | None = None,
        crashes: CrashRecord | None = None,
    ) -> None:
        self._queue = queue
        self._router = router
        self._history = OrderedHistory(history, publisher)
        self._surfaces = surfaces
        self._recent = recent
        self._fleet = fleet
        self._publisher = publisher
        self._status = status
        self._asked = AskedOnScreen(surfaces, router)
        self._topics = Topics(surfaces, recent, publisher)
        self._told_sign_in: set[str] = set()  # agents whose sign-in notice is out
        self._crashes = crashes or CrashRecord(None)
        self._summary_timer = OneTimer()
        self._turn_lengths = TurnLengths(router.clock)
        self._pusher = pusher
        self._usage = usage

    async def run(self) -> None:
        while True:
            event = await self._queue.get()
            try:
                self.handle(event)
            except Exception:  # a surface fault must never stop presentation
                log.exception("could not present an event")
            finally:
                self._queue.task_done()

    def close(self) -> None:
        self._summary_timer.cancel()
        if self._pusher is not None:
            self._pusher.close()
        self._history.finish()

    def handle(self, event: Event) -> None:
        if isinstance(event, AgentCrashed):
            self._fleet.troubles.crashed(event)  # why, on the agents' pages too
            self._publisher.changed(Changed.AGENTS)
        if isinstance(event, _FACTS):
            self._fact(event)
        elif isinstance(event, NoticeReceived):
            self._route(event)
        elif isinstance(event, NoticeMalformed):
            self._history.malformed(event)
            return
        elif isinstance(event, _AGENT_EVENTS):
            if not self._agent_event(event):
                return
        elif not self._hosting_event(event):
            return  # nothing the tray shows changed
        self._publisher.publish()

    def _agent_event(self, event: AgentStatus | SignInNeeded | SignInOutput | QueueChanged | ActivityChanged) -> bool:
        """An agent's state, sign-in, queue or what its sessions do: whether the tray may have changed."""
        if isinstance(event, AgentStatus):
            self._agent_status(event)
            return True
        if isinstance(event, SignInNeeded):
            # once per agent until it is signed in, across restarts too
            return event.agent not in self._told_sign_in and self._hosting_event(event)
        if isinstance(event, SignInOutput):
            self._publisher.changed(Changed.AGENTS)  # the window shows the address with the agent
            if not event.links:  # the sign-in ended: what it said to open is no longer so
                self._topics.take_back(sign_in_topic(event.agent))
                return False
            self._hosting_event(event)
            return True
        if isinstance(event, ActivityChanged):
            self._publisher.changed(Changed.SESSIONS)
            self._publisher.changed(Changed.AGENTS)  # an agent's count of sessions waiting for the person
            return True
        self._turn_lengths.queue_changed(event)
        if self._usage is not None:
            self._usage.take(event)
        self._publisher.changed(Changed.SESSIONS)
        return False  # nothing the tray shows changed

    def _agent_status(self, event: AgentStatus) -> None:
        if self._fleet.note_status(event):
            self._told_sign_in.discard(event.agent)  # signed in: a later need is told again
        if event.state is AgentState.CONNECTED:
            self._connected(event.agent)
        self._status(event)
        self._publisher.changed(Changed.AGENTS)

    def _hosting_event(self, event: Event) -> bool:
        """acp-tray's own notice about a hosting event, if it makes one; whether the tray changed."""
        self._note(event)
        asked_or_settled = isinstance(event, _ASKED + _SETTLED)
        if asked_or_settled:
            self._publisher.changed(Changed.APPROVALS)
        lasted = self._turn_lengths.ended(event) if isinstance(event, TurnEnded) else None
        told = self._crashed(event) if isinstance(event, AgentCrashed) else False
        own = own_notice(event)
        if own is None:
            return asked_or_settled
        notice = NoticeReceived(
            own.agent,
            own.session_id,
            own.notice,
            source=ACP_TRAY,
            actions=own.actions,
            commands=own.commands,
            attention=own.attention,
            incident=own.incident,
            waits=own.waits,
            topic=own.topic,
        )
        decision, shown = self._route(notice, event, lasted if own.finished else None, told=told)
        if shown is not None and isinstance(event, _ASKED):
            self._asked.shown(_asked_id(event), decision, shown)
        return True

    def _note(self, event: Event) -> None:
        """What a hosting event changes before anything is said of it."""
        if isinstance(event, _SETTLED):
            self._settled(event)
        if isinstance(event, SignInNeeded):
            self._told_sign_in.add(event.agent)
        if isinstance(event, SessionAttached) and self._usage is not None:
            self._usage.take(event)
        if isinstance(event, _SESSION_EVENTS):
            self._publisher.changed(Changed.SESSIONS)

    def _settled(self, event: PermissionSettled | QuestionSettled) -> None:
        """An approval or question answered: its notice withdrawn, its pushes told, its end recorded."""
        self._asked.settled(_asked_id(event))
        if self._pusher is not None:
            self._pusher.settled(_asked_id(event), event.by)
        ended = _ended(event)
        if ended is not None:  # in the history, not presented
            self._history.record(NoticeReceived(event.agent, event.session_id, ended, source=ACP_TRAY), None, [])

    def _fact(self, event: SessionFact) -> None:
        """A session's usage, title or compaction: state for the tray, the window and `status`
        (cheap: no history record), and a rate limit's notice when one is due."""
        if self._usage is None:
            return
        changed, notice = self._usage.take(event)
        if notice is not None:
            own = NoticeReceived(event.agent, event.session_id, notice, source=ACP_TRAY, topic=f"limit:{event.agent}")
            self._route(own)
        if changed:
            self._publisher.usage_changed()

    def _crashed(self, event: AgentCrashed) -> bool:
        """A crash: the first in a row starts a new incident; whether this loop was told at an earlier
        start, the same way (then it is not popped up again); a loop given up on is remembered."""
        if event.in_a_row == 1:
            self._router.end_incident(event.agent, CRASH)
        reason = crash_reason(event)
        told = self._crashes.told(event.agent, reason)
        if event.retry_in is None:
            self._crashes.remember(event.agent, reason)
        return told

    def _connected(self, agent: str) -> None:
        """Connected: its sign-in notification has nothing left to ask, and a crash loop told earlier
        is over (a later one is told again)."""
        self._crashes.forget(agent)
        self._topics.take_back(sign_in_need_topic(agent))

    def _route(
        self,
        event: NoticeReceived,
        cause: Event | None = None,
        turn_seconds: float | None = None,
        *,
        told: bool = False,
    ) -> tuple[Decision, Presentation | None]:
        """Route a notice (made from `cause`, for acp-tray's own; `turn_seconds`: how long the turn
        it ends lasted; `told`: told at an earlier start), record it and present it; its pushes start
        behind the desktop's notification."""
        decision, presentation = self._router.route(event, turn_seconds, told=told)
        pushed: Pushed = []
        if presentation is not None and self._pusher is not None:
            pushed = self._pusher.offer(presentation, cause or event)
        self._history.record(event, decision, pushed)
        if event.topic:
            self._topics.take_back(event.topic, presentation.group if presentation is not None else None)
        if presentation is not None:
            self.present(presentation)
        self._schedule_summaries()
        return decision, presentation

    def on_change(self, change: Change) -> None:
        """The daemon's change feed: when DND has ended, the tray's count of what it held back starts
        again, and the approvals it held back that still wait are shown now, with their buttons."""
        if change.what is not Changed.DND or self._router.dnd().active:
            return
        if self._router.missed_during_dnd:
            self._router.missed_during_dnd = 0
            self._publisher.changed(Changed.UNREAD)
            self._publisher.publish()
        self._asked.dnd_ended()

    def present(self, presentation: Presentation) -> None:
        if presentation.tray:
            self._recent.add(presentation)
            self._publisher.changed(Changed.UNREAD)
        self._surfaces.show(presentation)

    def _schedule_summaries(self) -> None:
        """One timer for the earliest due overflow summary (no polling)."""
        self._summary_timer.set(self._router.next_summary_in(), self._flush_summaries)

    def _flush_summaries(self) -> None:
        for presentation in self._router.summaries():
            self.present(presentation)
        self._schedule_summaries()


def _ended(event: PermissionSettled | QuestionSettled) -> Notice | None:
    """How a question ended (but by a timeout, which is told), or an approval answered from the
    phone: for the history."""
    if isinstance(event, QuestionSettled) and event.by != "timeout":
        return question_ended(event)
    if isinstance(event, PermissionSettled) and event.by.startswith("phone:"):
        return answered_from_phone(event)
    return None


def _asked_id(event: PermissionAsked | PermissionSettled | QuestionAsked | QuestionSettled) -> str:
    return event.question_id if isinstance(event, (QuestionAsked, QuestionSettled)) else event.approval_id
