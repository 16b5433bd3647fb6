"""Usage in a person's words for one-line surfaces (the tray's menu and tooltip): a session's
title, compaction, context window and turn cost; an agent's cost today and rate limits."""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime

from acp_tray.logs.text import plain_line
from acp_tray.presentation.limits import limit_line
from acp_tray.presentation.usage_book import SessionFigures, UsageBook, context_words, money

COMPACTING_WORDS = "compacting the conversation…"
LINE_LIMIT = 80


def session_words(figures: SessionFigures) -> str:
    """ "say hello · compacting the conversation… · 1,230 of 1,000,000 tokens (0 %) · turn 0.027 USD"."""
    parts = [plain_line(figures.title, 40)] if figures.title else []
    if figures.compacting:
        parts.append(COMPACTING_WORDS)
    if figures.used is not None and figures.size is not None:
        parts.append(context_words(figures.used, figures.size))
    if figures.cost is not None and figures.turn_cost is not None:
        parts.append(f"turn {money(figures.turn_cost, plain_line(figures.cost.currency, 16))}")
    return plain_line(" · ".join(parts), LINE_LIMIT)


def spent_words(spent: dict[str, float]) -> str:
    """ "0.027 USD + 3 credits" ("" when nothing was spent)."""
    return " + ".join(money(amount, plain_line(currency, 16)) for currency, amount in sorted(spent.items()))


def agent_notes(book: UsageBook, agent: str, session_ids: Iterable[str], now: datetime) -> tuple[str, ...]:
    """The lines under an agent in the tray: each of its sessions the agent said something of,
    what it cost today, and its rate limits."""
    notes = [words for sid in session_ids if (f := book.figures(agent, sid)) and (words := session_words(f))]
    spent = spent_words(book.agent_today(agent, now.date()))
    if spent:
        notes.append(f"today {spent}")
    for limit in book.limits.get(agent, {}).values():
        notes.append(plain_line(limit_line(limit, now), LINE_LIMIT))
    return tuple(notes)
