"""The delay before trying again after a failure, doubling while failures keep coming: how an agent is
restarted after a crash, a push is retried and a phone's reply stream reconnects. Pure: no clock, no I/O."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class BackoffPolicy:
    initial: float = 1.0
    maximum: float = 300.0
    stable: float = 60.0
    fast: float = 10.0
    give_up_after: int | None = 5


class Backoff:
    """Pure: feed it each crash's uptime, get the delay before the restart (None: give up)."""

    def __init__(self, policy: BackoffPolicy) -> None:
        self.policy = policy
        self.streak = 0  # crashes since the last stable run
        self.fast_streak = 0  # consecutive crashes within `fast` seconds of starting

    def crashed(self, uptime: float) -> float | None:
        p = self.policy
        if uptime >= p.stable:
            self.streak = 0
        self.streak += 1
        self.fast_streak = self.fast_streak + 1 if uptime < p.fast else 0
        if p.give_up_after is not None and self.fast_streak >= p.give_up_after:
            return None
        return float(min(p.maximum, p.initial * 2.0 ** min(self.streak - 1, 64)))  # no overflow after days down
