"""The notification chain with scripted backends: fallback, retry, ordering, bounds, text safety."""

from __future__ import annotations

import logging

import pytest

from acp_tray.notifiers.chain import NotifierChain
from acp_tray.notifiers.content import Urgency, notification_of
from acp_tray.notifiers.plyer_backend import argument_safe
from tests.support.notifier_backends import Scripted
from tests.support.platforms import posix_only
from tests.support.presentations import make_presentation as presentation


class Clock:
    now = 0.0

    def __call__(self) -> float:
        return self.now


@pytest.mark.parametrize(
    ("severity", "urgency"),
    [("info", Urgency.NORMAL), ("warning", Urgency.NORMAL), ("error", Urgency.CRITICAL), ("_x", Urgency.NORMAL)],
)
def test_urgency_by_severity(severity: str, urgency: Urgency) -> None:
    assert notification_of(presentation(severity=severity)).urgency is urgency


def test_content_is_sanitised_once_for_every_backend() -> None:
    title = "\u202eevil\x1b[31m " + "t" * 1000
    n = notification_of(presentation(title=title, description="line one\r\nline two\x00" + "d" * 5000, count=3))
    assert n.summary.startswith("bot: evil[31m t") and n.summary.endswith("… ×3")
    assert "\u202e" not in n.summary and "\x1b" not in n.summary and len(n.summary) < 220
    assert n.body.startswith("line one\nline two") and len(n.body) <= 1000 and "\x00" not in n.body


@pytest.mark.parametrize("text", ["--help", "-u critical", "-t 0", "--app-name=evil"])
def test_plyer_arguments_can_never_be_options(text: str) -> None:
    safe = argument_safe(text)
    assert not safe.startswith("-") and safe.endswith(text.lstrip("-")) and len(safe) == len(text) + 1


@posix_only("Flatpak's notify path is Linux's")
def test_plyer_flatpak_text_cannot_end_a_gvariant_string() -> None:
    assert "'" not in argument_safe("it's <'x'>") and "\\" not in argument_safe("a\\b")


async def test_a_failing_backend_falls_back_without_losing_and_warns_once(caplog: pytest.LogCaptureFixture) -> None:
    clock = Clock()
    first, second = Scripted("first"), Scripted("second")
    chain = NotifierChain([first, second], retry_after=30, monotonic=clock)
    assert (await chain.start()).startswith("first")
    chain.present(presentation(1, "a"))
    await chain.drain()
    first.up = False
    with caplog.at_level(logging.WARNING):
        for group in range(2, 6):
            chain.present(presentation(group, f"n{group}"))
            await chain.drain()
    assert [n.summary for n in first.shown] == ["bot: a"]
    assert [n.summary for n in second.shown] == [f"bot: n{g}" for g in range(2, 6)]  # nothing lost
    assert len([r for r in caplog.records if "first notifications failed" in r.getMessage()]) == 1
    first.up = True
    chain.present(presentation(7, "still second"))
    await chain.drain()
    assert second.shown[-1].summary == "bot: still second"  # not retried before its time
    clock.now = 31
    with caplog.at_level(logging.WARNING):
        chain.present(presentation(8, "back"))
        await chain.drain()
    assert first.shown[-1].summary == "bot: back"
    assert any("first notifications work again" in r.getMessage() for r in caplog.records)


async def test_only_notify_presentations_are_sent() -> None:
    backend = Scripted("b")
    chain = NotifierChain([backend])
    await chain.start()
    chain.present(presentation(1, "tray only", notify=False))
    await chain.drain()
    assert backend.shown == []


async def test_in_flight_calls_are_bounded() -> None:
    backend = Scripted("slow", delay=0.01)
    chain = NotifierChain([backend], max_in_flight=16)
    await chain.start()
    for group in range(200):
        chain.present(presentation(group, f"n{group}"))
    await chain.drain()
    assert len(backend.shown) == 200 and backend.max_in_flight == 16


async def test_updates_of_one_group_stay_in_order_and_the_newest_count_wins() -> None:
    backend = Scripted("slow", delay=0.05)
    chain = NotifierChain([backend])
    await chain.start()
    for count in range(1, 6):
        chain.present(presentation(1, "same", count=count))
    await chain.drain()
    counts = [n.presentation.count for n in backend.shown]
    assert counts[0] == 1 and counts[-1] == 5 and counts == sorted(counts)
    assert len(counts) == 2  # 2..4 were superseded while 1 was in flight
    assert backend.max_in_flight == 1


async def test_the_backlog_is_bounded() -> None:
    backend = Scripted("stuck", delay=10)
    chain = NotifierChain([backend], max_in_flight=1)
    await chain.start()
    for group in range(5000):
        chain.present(presentation(group, f"n{group}"))
    assert chain.dropped == 5000 - 1 - 256
    await chain.aclose()
