"""Routing policy with a fake clock: routes, mute, coalescing, DND, rate limit and summaries."""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any
from zoneinfo import ZoneInfo

import pytest

from acp_tray.events import NoticeReceived
from acp_tray.prefs.model import Preferences
from acp_tray.presentation.coalesce import Coalescer
from acp_tray.presentation.ratelimit import RateLimiter, TokenBucket
from acp_tray.presentation.router import Router
from acp_tray.protocol.notice import Notice
from tests.support.clock import FakeClock

ZONE = ZoneInfo("Europe/Berlin")
START = datetime(2026, 11, 27, 15, 0, tzinfo=ZONE)  # a Friday afternoon


def prefs(**data: Any) -> Preferences:
    base: dict[str, Any] = {"agents": {"bot": {"command": ["bot"]}}, "coalesce": {"window": 30}}
    for key, value in data.items():
        base[key] = value
    return Preferences.model_validate(base)


def notice(severity: str = "info", title: str = "T", description: str | None = None, agent: str = "bot") -> Any:
    return NoticeReceived(agent, "s1", Notice(severity, title, description))


def router(**data: Any) -> tuple[Router, FakeClock]:
    clock = FakeClock(START)
    return Router(prefs(**data), clock), clock


@pytest.mark.parametrize(
    ("severity", "route", "notify", "tray"),
    [
        ("info", "both", True, True),
        ("warning", "both", True, True),
        ("error", "both", True, True),
        ("_acme.audit", "both", True, True),
        ("critical", "both", True, True),
    ],
)
def test_default_routes(severity: str, route: str, notify: bool, tray: bool) -> None:
    r, _ = router()
    decision, presentation = r.route(notice(severity))
    assert (decision.route, decision.notify, decision.tray, decision.suppressed) == (route, notify, tray, None)
    assert presentation is not None and presentation.severity == severity


def test_default_timeouts_by_severity_class() -> None:
    r, _ = router()
    timeouts = {s: r.route(notice(s, title=s))[1].timeout for s in ("info", "warning", "error", "_x", "future")}  # type: ignore[union-attr]
    assert timeouts == {"info": 5, "warning": 0, "error": 0, "_x": 10, "future": 10}


@pytest.mark.parametrize(
    ("route", "notify", "tray", "presented"),
    [("notify", True, False, True), ("tray", False, True, True), ("none", False, False, False)],
)
def test_each_route(route: str, notify: bool, tray: bool, presented: bool) -> None:
    r, _ = router(severity={"warning": {"route": route}})
    decision, presentation = r.route(notice("warning"))
    assert (decision.route, decision.notify, decision.tray) == (route, notify, tray)
    assert (presentation is not None) is presented


def test_unknown_severities_use_the_other_table_never_their_name() -> None:
    r, _ = router(severity={"other": {"route": "tray", "timeout": 3}, "error": {"route": "notify"}})
    for severity in ("_acme.error", "errorish", "ERROR", "fatal"):
        decision, presentation = r.route(notice(severity, title=severity))
        assert decision.route == "tray" and presentation is not None and presentation.timeout == 3


def test_agent_override_and_mute() -> None:
    r, _ = router(
        agents={
            "bot": {"command": ["bot"], "route": {"info": "none", "error": "tray"}},
            "quiet": {"command": ["q"], "mute": True},
        }
    )
    assert r.route(notice("info"))[0].route == "none"
    assert r.route(notice("error"))[0].route == "tray"
    assert r.route(notice("warning"))[0].route == "both"  # no override: the severity table
    decision, presentation = r.route(notice("error", agent="quiet"))
    assert decision.suppressed == "muted" and presentation is None
    assert r.route(notice("info", agent="stranger"))[0].route == "both"  # not configured: defaults


def test_identical_notices_coalesce_within_the_window() -> None:
    r, clock = router()
    first = r.route(notice("warning", "Rerouted", "d"))
    clock.advance(29.9)
    second = r.route(notice("warning", "Rerouted", "d"))
    assert first[1] is not None and second[1] is not None
    assert second[0].suppressed == "coalesced" and second[0].count == 2
    assert second[1].group == first[1].group and second[1].count == 2
    clock.advance(29.9)  # the window slides with each repeat
    assert r.route(notice("warning", "Rerouted", "d"))[0].count == 3
    clock.advance(30.1)
    fresh = r.route(notice("warning", "Rerouted", "d"))
    assert fresh[0].count == 1 and fresh[0].suppressed is None and fresh[1].group != first[1].group  # type: ignore[union-attr]


@pytest.mark.parametrize(
    "other",
    [
        notice("warning", "Rerouted", "other description"),
        notice("error", "Rerouted", "d"),
        notice("warning", "Rerouted!", "d"),
        notice("warning", "Rerouted", "d", agent="other-bot"),
        NoticeReceived("bot", "s1", Notice("warning", "Rerouted", "d"), source="acp-tray"),
    ],
)
def test_any_difference_is_a_new_group(other: NoticeReceived) -> None:
    r, _ = router()
    r.route(notice("warning", "Rerouted", "d"))
    assert r.route(other)[0].count == 1


def test_what_an_agent_says_again_in_its_next_session_is_a_repeat_but_acp_trays_own_per_session_notices_are_not() -> (
    None
):
    """After a reconnect the agent's session may be a new one, and it says its warning again (codex
    re-sends its config warning): within the window that is a repeat. acp-tray's own notices are
    about a session ("Finished" of one is not the other's)."""
    r, _ = router()
    first = r.route(notice("warning", "Deprecated setting", "d"))
    again = r.route(NoticeReceived("bot", "s2", Notice("warning", "Deprecated setting", "d")))
    assert again[0].suppressed == "coalesced" and again[0].count == 2
    assert again[1] is not None and first[1] is not None and again[1].group == first[1].group
    own = [NoticeReceived("bot", s, Notice("info", "Finished"), source="acp-tray") for s in ("s1", "s2")]
    assert [r.route(event)[0].count for event in own] == [1, 1]


def test_a_notice_replayed_inside_session_load_is_recorded_never_presented() -> None:
    r, _ = router()
    replayed = NoticeReceived("bot", "s1", Notice("error", "Build failed"), replayed=True)
    decision, presentation = r.route(replayed)
    assert presentation is None and (decision.notify, decision.tray, decision.suppressed) == (False, False, "replayed")
    assert r.route(notice("error", "Build failed"))[0].count == 1  # the live one after it is new


def test_window_zero_turns_coalescing_off() -> None:
    r, _ = router(coalesce={"window": 0})
    r.route(notice())
    assert r.route(notice())[0].count == 1


def test_dnd_holds_back_native_notifications_but_keeps_the_tray() -> None:
    r, clock = router(dnd={"enabled": True, "until": START + timedelta(minutes=30), "allow": ["error"]})
    decision, presentation = r.route(notice("warning"))
    assert (decision.notify, decision.tray, decision.suppressed) == (False, True, "dnd")
    assert presentation is not None and presentation.tray and not presentation.notify
    assert r.route(notice("error"))[0].notify  # allowed to break through
    assert r.missed_during_dnd == 1
    clock.advance(30 * 60)
    assert r.route(notice("warning", title="after"))[0].notify  # DND expired
    assert r.missed_during_dnd == 1  # nothing replayed, the count stays for the tray


def test_quiet_hours_are_dnd() -> None:
    r, clock = router(dnd={"quiet_hours": {"enabled": True, "start": "15:30", "end": "16:00"}})
    assert r.route(notice(title="before"))[0].notify
    clock.advance(31 * 60)
    assert r.route(notice(title="during"))[0].suppressed == "dnd"


def test_rate_limit_overflow_goes_to_the_tray_then_one_summary() -> None:
    r, clock = router(rate_limit={"burst": 5, "per": 10})
    decisions = [r.route(notice(title=f"n{i}"))[0] for i in range(17)]
    assert [d.notify for d in decisions] == [True] * 5 + [False] * 12
    assert {d.suppressed for d in decisions[5:]} == {"rate_limited"} and all(d.tray for d in decisions[5:])
    assert r.summaries() == []  # no token yet
    delay = r.next_summary_in()
    assert delay == pytest.approx(2.0)  # one token refills every 10/5 s
    clock.advance(delay)  # type: ignore[arg-type]
    (summary,) = r.summaries()
    assert summary.title == "12 more notices from bot" and summary.notify and summary.source == "acp-tray"
    assert r.next_summary_in() is None
    clock.advance(2.0)
    assert r.route(notice(title="calm again"))[0].notify


def test_the_summary_carries_the_worst_severity_and_respects_dnd() -> None:
    r, clock = router(rate_limit={"burst": 1, "per": 60})
    r.route(notice("info", "a"))
    r.route(notice("error", "b"))
    r.route(notice("warning", "c"))
    r.update_prefs(prefs(rate_limit={"burst": 1, "per": 60}, dnd={"enabled": True}))
    clock.advance(60)
    (summary,) = r.summaries()
    assert summary.severity == "error" and summary.title == "2 more notices from bot"
    assert not summary.notify and summary.tray


def test_rate_limits_are_per_agent() -> None:
    r, _ = router(rate_limit={"burst": 2, "per": 10}, agents={"a": {"command": ["a"]}, "b": {"command": ["b"]}})
    assert [r.route(notice(title=f"{i}", agent="a"))[0].notify for i in range(3)] == [True, True, False]
    assert r.route(notice(title="x", agent="b"))[0].notify


def test_token_bucket_refill_edges() -> None:
    bucket = TokenBucket(capacity=2, refill_per_second=0.5, tokens=2, updated=0.0)
    assert bucket.take(0.0) and bucket.take(0.0) and not bucket.take(0.0)
    assert not bucket.take(1.999)
    assert bucket.take(2.0)  # one token after exactly 1/rate seconds
    assert not bucket.take(2.0)
    bucket.take(100.0)
    assert bucket.tokens == pytest.approx(1.0)  # refill is capped at capacity (2), one taken


def test_coalescing_state_is_bounded() -> None:
    coalescer = Coalescer(max_groups=100)
    for i in range(10_000):
        coalescer.add(("a", "s", "info", f"t{i}", None), float(i) * 0.001, 3600)
    assert len(coalescer) == 100


def test_rate_limiter_reconfigure_keeps_spent_tokens_spent() -> None:
    limiter = RateLimiter(5, 10)
    for _ in range(5):
        assert limiter.allow("a", "info", 0.0)
    limiter.configure(50, 10)
    assert not limiter.allow("a", "info", 0.0)


def test_acp_tray_notices_about_a_flooding_agent_have_their_own_budget_and_are_not_muted() -> None:
    r, _ = router(rate_limit={"burst": 2, "per": 60}, agents={"bot": {"command": ["bot"]}})
    assert [r.route(notice(title=f"flood {i}"))[0].notify for i in range(4)] == [True, True, False, False]
    asked = NoticeReceived(
        "bot", "s", Notice("warning", "Needs approval"), source="acp-tray", actions=(("approval:1:ok", "OK"),)
    )
    decision, presentation = r.route(asked)
    assert decision.notify and decision.suppressed is None  # the flood does not hide it
    assert presentation is not None and presentation.source == "acp-tray" and presentation.actions == asked.actions
    # a muted agent's own words are muted; what acp-tray says about it is not
    r.update_prefs(prefs(agents={"bot": {"command": ["bot"], "mute": True}}))
    assert r.route(notice(title="hush"))[0].suppressed == "muted"
    assert r.route(NoticeReceived("bot", "s", Notice("warning", "Crashed"), source="acp-tray"))[0].notify
    # two approvals with the same text are two items, never coalesced into one
    again = NoticeReceived(
        "bot", "s", Notice("warning", "Needs approval"), source="acp-tray", actions=(("approval:2:ok", "OK"),)
    )
    assert r.route(again)[1].group != presentation.group  # type: ignore[union-attr]


def test_a_flood_of_an_agents_requests_is_held_to_acp_trays_own_budget() -> None:
    """An agent that asks 20 times (approvals, input) gets 2 popups, the rest in the tray, then one summary."""
    r, clock = router(rate_limit={"burst": 2, "per": 60})
    asks = [
        NoticeReceived("bot", "s", Notice("warning", "Asked for input", f"question {i}"), source="acp-tray")
        for i in range(20)
    ]
    decisions = [r.route(a)[0] for a in asks]
    assert [d.notify for d in decisions] == [True, True] + [False] * 18
    assert {d.suppressed for d in decisions[2:]} == {"rate_limited"} and all(d.tray for d in decisions)
    assert r.route(notice(title="the agent's own"))[0].notify  # its own budget is untouched
    clock.advance(30)
    (summary,) = r.summaries()
    assert summary.title == "18 more of acp-tray's notices about bot" and summary.severity == "warning"
