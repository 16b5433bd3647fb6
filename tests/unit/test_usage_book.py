"""Usage, cost and rate limits as the person reads them (pure parts: the wire readers, the usage
book, the rate-limit warnings)."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta

from acp_tray.events import QueueChanged, SessionAttached, UsageReported
from acp_tray.presentation.limits import LimitWatch
from acp_tray.presentation.usage_book import UsageBook
from acp_tray.protocol.usage import RateLimit, rate_limit, usage

TODAY = date(2026, 12, 4)
NOW = datetime(2026, 12, 4, 13, 0, tzinfo=UTC)


def report(amount: float | None, session: str = "s1", currency: str = "USD") -> UsageReported:
    raw: dict[str, object] = {"used": 10, "size": 100}
    if amount is not None:
        raw["cost"] = {"amount": amount, "currency": currency}
    said = usage(raw)
    assert said is not None
    return UsageReported("claude", session, said)


def turn(running: bool, session: str = "s1") -> QueueChanged:
    return QueueChanged("claude", session, "default", running, 0)


def test_a_turn_costs_what_the_session_cost_since_it_started_and_the_day_adds_each_turn() -> None:
    book = UsageBook(TODAY)
    book.note(turn(True), TODAY)
    book.note(report(0.0054), TODAY)
    book.note(report(0.027), TODAY)
    book.note(turn(False), TODAY)
    figures = book.figures("claude", "s1")
    assert figures is not None and figures.turn_cost == 0.027
    book.note(turn(True), TODAY)
    book.note(report(0.04), TODAY)
    assert round(figures.turn_cost or 0, 6) == 0.013
    assert round(book.all_today(TODAY)["USD"], 6) == 0.04


def test_a_resumed_session_counts_from_its_first_figure_not_from_zero() -> None:
    book = UsageBook(TODAY)
    book.note(SessionAttached("claude", "default", "s1", "resumed"), TODAY)
    book.note(turn(True), TODAY)
    book.note(report(5.0), TODAY)  # what it cost before acp-tray saw it: not today's
    book.note(report(5.5), TODAY)
    assert book.all_today(TODAY) == {"USD": 0.5}


def test_a_new_day_starts_from_nothing() -> None:
    book = UsageBook(TODAY)
    book.note(report(1.0), TODAY)
    tomorrow = TODAY + timedelta(days=1)
    assert book.all_today(tomorrow) == {}
    book.note(report(1.25), tomorrow)
    assert book.all_today(tomorrow) == {"USD": 0.25}


def test_bad_figures_are_ignored_not_errors() -> None:
    assert usage({"used": -1, "size": 10}) is None and usage({"used": "1", "size": 10}) is None
    said = usage({"used": 1, "size": 10, "cost": {"amount": float("nan"), "currency": "USD"}})
    assert said is not None and said.cost is None and said.cost_said == "kept"
    assert rate_limit({"_claude/rateLimit": {"utilization": 0.5}}) is None  # no status
    assert rate_limit({"_claude/rateLimit": {"status": "allowed", "resetsAt": 1e300}}) == RateLimit(
        "allowed", "", None, None
    )


def limit(utilization: float | None, status: str = "allowed_warning", resets: float | None = None) -> RateLimit:
    at = resets if resets is not None else (NOW + timedelta(hours=1, minutes=20)).timestamp()
    return RateLimit(status, "five_hour", utilization, at)


def test_a_limit_past_the_threshold_warns_once_per_window_with_its_reset_time() -> None:
    watch = LimitWatch()
    assert watch.notice("claude", limit(0.5, "allowed"), 80, NOW) is None
    warned = watch.notice("claude", limit(0.9), 80, NOW)
    assert warned is not None and warned.severity == "warning"
    assert warned.title == "90 % of the five-hour limit used; resets at 14:20"
    assert watch.notice("claude", limit(0.95), 80, NOW) is None  # the same window: told already
    later = (NOW + timedelta(hours=6)).timestamp()
    assert watch.notice("claude", limit(0.9, resets=later), 80, NOW) is not None  # a new window
    assert watch.notice("codex", limit(0.9), 95, NOW) is None  # the person's threshold


def test_a_refusal_for_a_limit_is_an_error_with_the_reset_time() -> None:
    refused = LimitWatch().notice("claude", limit(1.0, "rejected"), 80, NOW)
    assert refused is not None and refused.severity == "error"
    assert refused.title == "Refused: the five-hour limit reached; resets at 14:20"


def test_the_tray_names_each_session_and_says_what_today_cost() -> None:
    from acp_tray.events import AgentState, SessionTitled
    from acp_tray.presentation.usage_words import agent_notes, spent_words
    from acp_tray.tray.menu import menu_of
    from acp_tray.tray.snapshot import AgentRow, TraySnapshot, tooltip_of

    book = UsageBook(TODAY)
    book.note(SessionTitled("claude", "s1", "say hello"), TODAY)
    book.note(turn(True), TODAY)
    book.note(report(0.027), TODAY)
    book.limits["claude"] = {"five_hour": limit(0.9)}
    notes = agent_notes(book, "claude", ["s1"], NOW)
    assert notes == (
        "say hello · 10 of 100 tokens (10 %) · turn 0.027 USD",
        "today 0.027 USD",
        "90 % of the five-hour limit used; resets at 14:20",
    )
    snapshot = TraySnapshot(
        agents=(AgentRow("claude", AgentState.CONNECTED, notes=notes),), today=spent_words(book.all_today(TODAY))
    )
    assert tooltip_of(snapshot).endswith("1/1 agent connected · today 0.027 USD")
    (agents,) = [entry for entry in menu_of(snapshot) if entry.label == "Agents"]
    assert [entry.label for entry in agents.children[0].children[:3]] == list(notes)
