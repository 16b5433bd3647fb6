"""Usage in the control API's replies: a session's context window and cost, an agent's cost today
and its rate limits, today's cost across agents (from the usage book). Bounded and plain text
whatever the agents send."""

from __future__ import annotations

from datetime import datetime

from acp_tray.control.replies import CostRow, LimitRow, UsageRow
from acp_tray.logs.text import plain_line
from acp_tray.presentation.limits import limit_line, limit_words
from acp_tray.presentation.usage_book import SessionFigures, UsageBook, context_words, money
from acp_tray.protocol.usage import Cost, RateLimit

TITLE_LIMIT = 200


def cost_row(amount: float, currency: str) -> CostRow:
    currency = plain_line(currency, 16)
    return {"amount": round(amount, 6), "currency": currency, "text": money(amount, currency)}


def cost_rows(spent: dict[str, float]) -> list[CostRow]:
    return [cost_row(amount, currency) for currency, amount in sorted(spent.items())]


def _turn(figures: SessionFigures, cost: Cost | None) -> CostRow | None:
    if cost is None or figures.turn_cost is None:
        return None
    return cost_row(figures.turn_cost, cost.currency)


def usage_row(figures: SessionFigures | None) -> UsageRow | None:
    if figures is None or figures.used is None or figures.size is None:
        return None
    cost = figures.cost
    return {
        "used": figures.used,
        "size": figures.size,
        "text": context_words(figures.used, figures.size),
        "cost": cost_row(cost.amount, cost.currency) if cost is not None else None,
        "turn": _turn(figures, cost),
    }


def title_of(figures: SessionFigures | None) -> str | None:
    return plain_line(figures.title, TITLE_LIMIT) if figures is not None and figures.title else None


def limit_row(limit: RateLimit, now: datetime) -> LimitRow:
    resets = datetime.fromtimestamp(limit.resets_at, now.tzinfo).isoformat() if limit.resets_at is not None else None
    return {
        "kind": plain_line(limit.kind, 40),
        "name": plain_line(limit_words(limit), 60),
        "status": plain_line(limit.status, 40),
        "used": round(limit.utilization * 100) if limit.utilization is not None else None,
        "resets_at": resets,
        "text": plain_line(limit_line(limit, now), 120),
    }


def limit_rows(book: UsageBook, agent: str, now: datetime) -> list[LimitRow]:
    return [limit_row(limit, now) for limit in book.limits.get(agent, {}).values()]
