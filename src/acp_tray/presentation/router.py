"""Routing: from a notice, the preferences and the clock, decide what the person sees.

Order of rules for one notice:
1. a muted agent: nothing it says is shown (`suppressed: muted`; acp-tray's own events about it are);
2. the route: the agent's override for the severity class, else `[severity.CLASS]`;
3. coalescing: a repeat within the window updates the earlier presentation (`coalesced`, count);
4. a short turn: acp-tray's "Finished" for a turn shorter than `[turns] notify_after` goes to the
   tray only (`short_turn`): the person was probably still watching it;
5. do not disturb: no native notification unless the class is allowed (`dnd`), or it is an approval
   and approvals are (`[dnd] allow = ["approvals"]`);
6. the agent's rate limit: no native notification over the limit (`rate_limited`). acp-tray's own
   notices about an agent have a budget of their own: a flood of the agent's notices cannot hide
   its approval request, and a flood of its requests (approvals, input) cannot flood the screen.
A native notification stopped by 4, 5 or 6 goes to the tray instead, so nothing is lost. What is
shown as a new native notification gets its sound: an approval's (`[approvals] sound`), else its
severity class's (`[severity.CLASS] sound`); a repeat that updates a notification on screen is silent.
The answer to what the person just did (`attention = "answer"`: a preferences error and its fix,
a sign-in's result) is shown as a notification and in the tray whatever 2, 5 and 6 say.
Pure: no I/O, no threads; time comes from the injected clock.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from acp_tray.events import NoticeReceived
from acp_tray.prefs.model import Preferences, Route, SeverityClass
from acp_tray.presentation.clock import Clock
from acp_tray.presentation.coalesce import Coalescer
from acp_tray.presentation.dnd import DndState, dnd_state
from acp_tray.presentation.ratelimit import RateLimiter, Summary, overflow_title
from acp_tray.presentation.severity import severity_class
from acp_tray.protocol.notice import SeverityKind

ACP_TRAY = "acp-tray"
BRIEF = 4  # seconds on screen for an answer that is only news (info): "Preferences applied"


REPLAYED = "replayed by the agent inside session/load: its history, not a new notice"


@dataclass(frozen=True)
class Decision:
    """What was decided for one notice, and why (recorded in the history)."""

    route: Route
    notify: bool  # show (or update) a native notification now
    tray: bool  # put (or update) it in the tray list
    suppressed: str | None  # "muted" | "short_turn" | "dnd" | "rate_limited" | "coalesced" | None
    count: int  # occurrences in its coalesced group, this one included
    reason: str = ""  # why, in words: the setting that chose the route, and what held it back


@dataclass(frozen=True)
class Presentation:
    """One (possibly coalesced) item for the surfaces. `group` is a local id: repeats share it."""

    group: int
    agent: str
    session_id: str
    severity: str
    kind: SeverityKind
    title: str
    description: str | None
    count: int
    timeout: int
    notify: bool
    tray: bool
    time: datetime
    source: str = "agent"  # "agent" or "acp-tray" (acp-tray's own events)
    actions: tuple[tuple[str, str], ...] = ()  # (action id, label): buttons a notification may offer
    commands: str = ""  # the description's last line: how to answer by command, where there are no buttons
    sound: str = ""  # a freedesktop sound name for the native notification; "" = silent


def sound_for(prefs: Preferences, cls: SeverityClass, event: NoticeReceived) -> str:
    """The sound a new native notification makes: an approval's own, else its severity class's."""
    if event.attention == "approval":
        return prefs.approvals.sound
    return prefs.severity.of(cls).sound


class Router:
    def __init__(self, prefs: Preferences, clock: Clock) -> None:
        self.prefs = prefs
        self.clock = clock
        self._coalescer = Coalescer()
        self._limiter = RateLimiter(prefs.rate_limit.burst, prefs.rate_limit.per)
        self.missed_during_dnd = 0  # native notifications held back by DND, for the tray

    def update_prefs(self, prefs: Preferences) -> None:
        self.prefs = prefs
        self._limiter.configure(prefs.rate_limit.burst, prefs.rate_limit.per)

    def dnd(self) -> DndState:
        return dnd_state(self.prefs.dnd, self.clock.now())

    def route(self, event: NoticeReceived, turn_seconds: float | None = None) -> tuple[Decision, Presentation | None]:
        """`turn_seconds`: for acp-tray's "Finished", how long the turn took (None: not one, or unknown)."""
        prefs = self.prefs
        notice = event.notice
        cls = severity_class(notice.kind)
        if event.replayed:  # the agent's history, sent again inside a session/load: recorded, not live
            return Decision("none", False, False, "replayed", 1, REPLAYED), None
        # mute and per-agent routes apply to what the agent says, not to acp-tray's own events
        agent = prefs.agents.get(event.agent) if event.source == "agent" else None
        if agent is not None and agent.mute:
            return Decision("none", False, False, "muted", 1, f"[agents.{event.agent}] mute = true"), None
        override: Route | None = getattr(agent.route, cls) if agent is not None else None
        route: Route = override or prefs.severity.of(cls).route
        why = [f'[agents.{event.agent}.route] {cls} = "{route}"' if override else f'[severity.{cls}] route = "{route}"']
        answer = event.attention == "answer"
        if answer:
            route = "both"
            why.append("the answer to what you did: shown whatever the routes and do not disturb say")
        wants_notify = route in ("notify", "both")
        tray = route in ("tray", "both")
        now = self.clock.monotonic()
        # an approval's buttons (their ids) make it one of its own; what an agent says is a repeat
        # whatever its session (it says it again in the new session after a reconnect)
        key = (
            event.source,
            event.agent,
            event.session_id if event.source != "agent" else "",
            notice.severity,
            notice.title,
            notice.description,
            *event.actions,
        )
        group = self._coalescer.add(key, now, prefs.coalesce.window)
        suppressed = "coalesced" if group.count > 1 else None
        if suppressed:
            why.append(f"repeat ×{group.count} within [coalesce] window = {prefs.coalesce.window:g} s")
        if route == "none":
            return Decision(route, False, False, suppressed, group.count, "; ".join(why)), None
        notify = wants_notify
        after = prefs.turns.notify_after
        if notify and turn_seconds is not None and turn_seconds < after:
            notify, tray, suppressed = False, True, "short_turn"
            why.append(f"a {turn_seconds:.1f} s turn, under [turns] notify_after = {after:g} s: tray only")
        held = self._held_by_dnd(event, cls) if notify and not answer else None
        if held is not None:
            notify, tray, suppressed = False, True, "dnd"
            why.append(held)
            self.missed_during_dnd += 1
        if notify and not answer and not self._limiter.allow(event.agent, cls, now, event.source):
            notify, tray, suppressed = False, True, "rate_limited"
            limit = prefs.rate_limit
            why.append(f"over the rate limit ([rate_limit] burst = {limit.burst} per {limit.per:g} s): tray only")
        decision = Decision(route, notify, tray, suppressed, group.count, "; ".join(why))
        presentation = Presentation(
            group=group.id,
            agent=event.agent,
            session_id=event.session_id,
            severity=notice.severity,
            kind=notice.kind,
            title=notice.title,
            description=notice.description,
            count=group.count,
            timeout=BRIEF if answer and cls == "info" else prefs.severity.of(cls).timeout,
            notify=notify,
            tray=tray,
            time=event.time,
            source=ACP_TRAY if event.agent == ACP_TRAY else event.source,
            actions=event.actions,
            commands=event.commands,
            sound=sound_for(prefs, cls, event) if notify and not group.notified else "",
        )
        group.notified = group.notified or notify
        return decision, presentation

    def _held_by_dnd(self, event: NoticeReceived, cls: SeverityClass) -> str | None:
        """Why DND holds this notice's notification back, or None when it does not."""
        allow = self.prefs.dnd.allow
        if cls in allow:
            return None
        approval = event.attention == "approval"
        if approval and "approvals" in allow:
            return None
        dnd = self.dnd()
        if not dnd.active:
            return None
        what = f"{cls} is not in [dnd] allow" + (', nor "approvals"' if approval else "")
        return f"do not disturb ({dnd.describe()}; {what}): tray only"

    def summaries(self) -> list[Presentation]:
        """Overflow summaries now due (rate limit): one per flooded agent, when a token is back."""
        return [self._summary(s) for s in self._limiter.due(self.clock.monotonic())]

    def next_summary_in(self) -> float | None:
        """Seconds until the next summary is due, for a timer (None: nothing pending)."""
        now = self.clock.monotonic()
        due = self._limiter.next_due(now)
        return None if due is None else max(0.0, due - now)

    def _summary(self, summary: Summary) -> Presentation:
        cls: SeverityClass = "info" if summary.severity_class == "other" else summary.severity_class
        notify = cls in self.prefs.dnd.allow or not self.dnd().active
        return Presentation(
            group=self._coalescer.new_id(),
            agent=summary.agent,
            session_id="",
            severity=cls,
            kind=SeverityKind(cls),
            title=overflow_title(summary),
            description="They are in the tray and the history; held back by the rate limit.",
            count=1,
            timeout=self.prefs.severity.of(cls).timeout,
            notify=notify,
            tray=True,
            time=self.clock.now(),
            source=ACP_TRAY,
        )
