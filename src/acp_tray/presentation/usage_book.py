"""What each session and agent has used: the context window, the cost of the running (or last)
turn and of the day, the latest rate-limit reports, and each session's title and compaction.
Kept small: the latest figures per session (bounded), a day's total per agent and currency; no
history of every update. Pure: events and a clock in, figures out (`state/usage_totals.py`
keeps the day's totals on disk).

Costs arrive cumulative per session (`usage_update.cost`); what is added to the day is the
difference from the last figure. A session acp-tray loaded or resumed was costing before: its
first figure is where counting starts, not a cost of today.
"""

from __future__ import annotations

from collections import OrderedDict
from dataclasses import dataclass, field
from datetime import date

from acp_tray.events import CompactionChanged, QueueChanged, SessionAttached, SessionFact, SessionTitled, UsageReported
from acp_tray.protocol.usage import Cost, RateLimit

MAX_SESSIONS = 500  # sessions whose figures are kept (a subagent is a session too); the oldest go first
MAX_LIMITS = 8  # rate limits kept per agent
COMPACTING = "in_progress"
Totals = dict[str, dict[str, float]]  # agent -> currency -> amount


@dataclass
class SessionFigures:
    """One session's latest figures (changed in place by the book only)."""

    title: str | None = None
    compacting: bool = False
    used: int | None = None
    size: int | None = None
    cost: Cost | None = None
    turn_cost: float | None = None  # in `cost.currency`: since the running (or last) turn started
    turn_base: float | None = None  # the session's cost when that turn started
    carried: bool = False  # loaded or resumed: its first cost figure is only where counting starts
    running: bool = False


def money(amount: float, currency: str) -> str:
    """ "0.027 USD", "1.25 EUR", "12 credits": the amount as sent, rounded for reading."""
    digits = 2 if amount >= 1 else 4
    text = f"{amount:.{digits}f}".rstrip("0").rstrip(".") or "0"
    return f"{text} {currency}"


def context_words(used: int, size: int) -> str:
    """ "1,230 of 1,000,000 tokens (0 %)"."""
    share = f" ({round(100 * used / size)} %)" if size else ""
    return f"{used:,} of {size:,} tokens{share}"


@dataclass
class UsageBook:
    today: date
    totals: Totals = field(default_factory=dict)  # today's, per agent and currency
    sessions: OrderedDict[tuple[str, str], SessionFigures] = field(default_factory=OrderedDict)
    limits: dict[str, dict[str, RateLimit]] = field(default_factory=dict)  # agent -> kind -> latest
    totals_changed: int = 0  # how many times `totals` changed (for whoever keeps them)

    def figures(self, agent: str, session_id: str | None) -> SessionFigures | None:
        return self.sessions.get((agent, session_id)) if session_id is not None else None

    def _session(self, agent: str, session_id: str) -> SessionFigures:
        key = (agent, session_id)
        figures = self.sessions.get(key)
        if figures is None:
            figures = self.sessions[key] = SessionFigures()
            if len(self.sessions) > MAX_SESSIONS:
                self.sessions.popitem(last=False)
        return figures

    def note(self, event: SessionFact | QueueChanged | SessionAttached, day: date) -> bool:
        """Take `event` in (on `day`, local); whether a figure a person sees changed."""
        if isinstance(event, SessionAttached):
            self._session(event.agent, event.session_id).carried = event.how in ("loaded", "resumed")
            return False
        if isinstance(event, QueueChanged):
            return self._turn(event)
        figures = self._session(event.agent, event.session_id)
        if isinstance(event, SessionTitled):
            changed = figures.title != event.title
            figures.title = event.title
            return changed
        if isinstance(event, CompactionChanged):
            compacting = event.compaction.status == COMPACTING
            changed, figures.compacting = figures.compacting != compacting, compacting
            return changed
        return self._usage(event, figures, day)

    def _turn(self, event: QueueChanged) -> bool:
        figures = self.sessions.get((event.agent, event.session_id))
        if figures is None or figures.running == event.running:
            return False
        figures.running = event.running
        if event.running:  # a turn starts: its cost counts from here
            figures.turn_base = figures.cost.amount if figures.cost is not None else None
            figures.turn_cost = None if figures.cost is None and figures.carried else 0.0
        else:
            figures.compacting = False  # a turn's end ends what it was doing
        return True

    def _usage(self, event: UsageReported, figures: SessionFigures, day: date) -> bool:
        usage = event.usage
        before = (figures.used, figures.size, figures.cost, figures.turn_cost)
        figures.used, figures.size = usage.used, usage.size
        if usage.limit is not None:
            kinds = self.limits.setdefault(event.agent, {})
            kinds[usage.limit.kind] = usage.limit
            if len(kinds) > MAX_LIMITS:
                del kinds[next(iter(kinds))]
        if usage.cost_said == "cleared":
            figures.cost = figures.turn_cost = None
        elif usage.cost is not None:
            self._cost(event.agent, figures, usage.cost, day)
        return before != (figures.used, figures.size, figures.cost, figures.turn_cost)

    def _cost(self, agent: str, figures: SessionFigures, cost: Cost, day: date) -> None:
        last = figures.cost
        if last is None or last.currency != cost.currency:  # counting starts (again)
            base = cost.amount if figures.carried and last is None else 0.0
            if figures.turn_base is None or last is not None:
                figures.turn_base = base
        else:
            base = last.amount
        figures.cost = cost
        assert figures.turn_base is not None
        figures.turn_cost = max(0.0, cost.amount - figures.turn_base)
        if cost.amount > base:
            self.add(agent, cost.currency, cost.amount - base, day)

    def add(self, agent: str, currency: str, amount: float, day: date) -> None:
        if day != self.today:  # a new day: yesterday's totals are not today's
            self.today, self.totals = day, {}
        spent = self.totals.setdefault(agent, {})
        spent[currency] = spent.get(currency, 0.0) + amount
        self.totals_changed += 1

    def agent_today(self, agent: str, day: date) -> dict[str, float]:
        return dict(self.totals.get(agent, {})) if day == self.today else {}

    def all_today(self, day: date) -> dict[str, float]:
        """Today's cost across agents, per currency."""
        if day != self.today:
            return {}
        total: dict[str, float] = {}
        for spent in self.totals.values():
            for currency, amount in spent.items():
                total[currency] = total.get(currency, 0.0) + amount
        return total
