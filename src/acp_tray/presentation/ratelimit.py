"""Flood control: a token bucket per agent for native notifications, and overflow summaries.

When an agent runs out of tokens its notices go to the tray only; the overflow is counted and
one summary ("12 more notices from NAME") is due as soon as a token is available again.
"""

from __future__ import annotations

from dataclasses import dataclass

from acp_tray.prefs.model import SeverityClass
from acp_tray.presentation.severity import SEVERITY_RANK


@dataclass
class TokenBucket:
    capacity: float
    refill_per_second: float
    tokens: float
    updated: float

    def _refill(self, now: float) -> None:
        elapsed = max(0.0, now - self.updated)
        self.tokens = min(self.capacity, self.tokens + elapsed * self.refill_per_second)
        self.updated = now

    def take(self, now: float) -> bool:
        self._refill(now)
        if self.tokens >= 1.0:
            self.tokens -= 1.0
            return True
        return False

    def next_token_at(self, now: float) -> float:
        self._refill(now)
        if self.tokens >= 1.0:
            return now
        return now + (1.0 - self.tokens) / self.refill_per_second


@dataclass
class Overflow:
    count: int = 0
    worst: SeverityClass = "info"  # the most severe class among the overflow


@dataclass(frozen=True)
class Summary:
    agent: str
    count: int
    severity_class: SeverityClass
    source: str = "agent"  # "acp-tray": its own notices about the agent, counted apart


def overflow_title(summary: Summary) -> str:
    """The summary's words, wherever it is shown or pushed: "12 more notices from NAME"."""
    plural = "notice" if summary.count == 1 else "notices"
    plural = f"of acp-tray's {plural} about" if summary.source != "agent" else f"{plural} from"
    return f"{summary.count} more {plural} {summary.agent}"


Key = tuple[str, str]  # (source, agent): an agent's notices and acp-tray's about it have separate budgets


class RateLimiter:
    def __init__(self, burst: int, per: float) -> None:
        self._buckets: dict[Key, TokenBucket] = {}
        self._overflow: dict[Key, Overflow] = {}
        self._limits: tuple[int, float] | None = None
        self.configure(burst, per)

    def configure(self, burst: int, per: float) -> None:
        """New limits (hot reload; the same limits again change nothing); tokens already spent stay spent."""
        if (burst, per) == self._limits:
            return
        self._limits = (burst, per)
        self._burst = float(burst)
        self._rate = burst / per
        for bucket in self._buckets.values():
            bucket.capacity, bucket.refill_per_second = self._burst, self._rate
            bucket.tokens = min(bucket.tokens, self._burst)

    def _bucket(self, key: Key, now: float) -> TokenBucket:
        bucket = self._buckets.get(key)
        if bucket is None:
            bucket = self._buckets[key] = TokenBucket(self._burst, self._rate, self._burst, now)
        return bucket

    def allow(self, agent: str, severity_class: SeverityClass, now: float, source: str = "agent") -> bool:
        """Take a token for one native notification; False means: tray only, counted for a summary."""
        key = (source, agent)
        if key not in self._overflow and self._bucket(key, now).take(now):
            return True
        overflow = self._overflow.setdefault(key, Overflow())
        overflow.count += 1
        if SEVERITY_RANK[severity_class] > SEVERITY_RANK[overflow.worst]:
            overflow.worst = severity_class
        return False

    def due(self, now: float) -> list[Summary]:
        """Summaries whose agent has a token again (each takes that token)."""
        ready = []
        for key, overflow in list(self._overflow.items()):
            if self._bucket(key, now).take(now):
                del self._overflow[key]
                ready.append(Summary(key[1], overflow.count, overflow.worst, key[0]))
        return ready

    def next_due(self, now: float) -> float | None:
        """When the next summary can be shown (for a timer; no polling)."""
        times = [self._bucket(key, now).next_token_at(now) for key in self._overflow]
        return min(times) if times else None
