"""What an agent says about its sessions beyond notices, read from raw updates (pure, never raises):
`usage_update` (context window used and size, cumulative cost), claude's rate-limit meta on it
(`_meta["_claude/rateLimit"]`, read where present, never required), `session_info_update`'s title,
and `compaction_update`'s status.

Each reader takes an update's raw object and gives a small value, or None when the update has
nothing usable (a wrong type is ignored, as the schema's `x-deserialize-default-on-error` says).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Literal

USAGE_UPDATE = "usage_update"
SESSION_INFO_UPDATE = "session_info_update"
COMPACTION_UPDATE = "compaction_update"
CLAUDE_RATE_LIMIT = "_claude/rateLimit"
CURRENCY_LIMIT = 16  # characters of a currency as sent ("USD", "credits")
TITLE_LIMIT = 200

CostSaid = Literal["kept", "cleared", "given"]  # v2: omitted leaves the last cost, null clears it


@dataclass(frozen=True, slots=True)
class Cost:
    amount: float  # cumulative for the session
    currency: str  # as sent


REFUSED_STATUS = "rejected"  # a RateLimit's status when the agent was refused for it


@dataclass(frozen=True, slots=True)
class RateLimit:
    """A vendor's rate-limit report: how much of which limit is used and when it resets."""

    status: str  # allowed | allowed_warning | rejected | ...
    kind: str  # five_hour | seven_day | ... ("" unknown)
    utilization: float | None  # 0..1
    resets_at: float | None  # seconds since the epoch


@dataclass(frozen=True, slots=True)
class Usage:
    used: int
    size: int
    cost: Cost | None
    cost_said: CostSaid
    limit: RateLimit | None = None


def _count(value: object) -> int | None:
    return value if type(value) is int and value >= 0 else None


def _number(value: object) -> float | None:
    if type(value) in (int, float) and math.isfinite(value):  # type: ignore[arg-type]
        return float(value)  # type: ignore[arg-type]
    return None


def _cost(raw: dict[str, Any]) -> tuple[Cost | None, CostSaid]:
    if "cost" not in raw:
        return None, "kept"
    cost = raw["cost"]
    if not isinstance(cost, dict):
        return None, "cleared" if cost is None else "kept"
    amount, currency = _number(cost.get("amount")), cost.get("currency")
    if amount is None or amount < 0 or not isinstance(currency, str) or not currency.strip():
        return None, "kept"
    return Cost(amount, currency.strip()[:CURRENCY_LIMIT]), "given"


def rate_limit(meta: object) -> RateLimit | None:
    """claude's `_claude/rateLimit` from an update's `_meta`, when it is there and has a status."""
    info = meta.get(CLAUDE_RATE_LIMIT) if isinstance(meta, dict) else None
    if not isinstance(info, dict) or not isinstance(info.get("status"), str):
        return None
    kind = info.get("rateLimitType")
    utilization = _number(info.get("utilization"))
    if utilization is not None and utilization > 1.0:  # given as a percentage
        utilization /= 100.0
    resets = _number(info.get("resetsAt"))
    if resets is not None and resets > 1e11:  # milliseconds
        resets /= 1000.0
    if resets is not None and not 0 < resets < 1e10:  # not a time a clock shows
        resets = None
    return RateLimit(str(info["status"])[:40], kind[:40] if isinstance(kind, str) else "", utilization, resets)


def usage(raw: dict[str, Any]) -> Usage | None:
    """A `usage_update`, or None when `used` or `size` is not a count."""
    used, size = _count(raw.get("used")), _count(raw.get("size"))
    if used is None or size is None:
        return None
    cost, said = _cost(raw)
    return Usage(used, size, cost, said, rate_limit(raw.get("_meta")))


def title(raw: dict[str, Any]) -> tuple[bool, str | None]:
    """A `session_info_update`'s title: (said, title); None clears it."""
    if "title" not in raw:
        return False, None
    value = raw["title"]
    if value is None:
        return True, None
    if not isinstance(value, str):
        return False, None
    return True, value[: TITLE_LIMIT * 2]


@dataclass(frozen=True, slots=True)
class Compaction:
    compaction_id: str
    status: str  # in_progress | completed | failed | cancelled | other
    error: str | None


def compaction(raw: dict[str, Any]) -> Compaction | None:
    cid, status, error = raw.get("compactionId"), raw.get("status"), raw.get("error")
    if not isinstance(cid, str) or not isinstance(status, str):
        return None
    return Compaction(cid[:200], status[:40], error[:300] if isinstance(error, str) else None)
