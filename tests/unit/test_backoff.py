"""Restart backoff: the delay doubles up to a cap, a stable run starts again, a crash loop is given up."""

from __future__ import annotations

from acp_tray.backoff import Backoff, BackoffPolicy

SLOW = 30.0  # longer than `fast` (10 s), shorter than `stable` (60 s): a crash, but not a crash loop


def delays(backoff: Backoff, uptimes: list[float]) -> list[float | None]:
    return [backoff.crashed(uptime) for uptime in uptimes]


def test_the_delay_doubles_from_initial_to_the_maximum() -> None:
    got = delays(Backoff(BackoffPolicy()), [SLOW] * 12)
    assert got == [1, 2, 4, 8, 16, 32, 64, 128, 256, 300, 300, 300]


def test_the_delay_follows_the_policy_numbers() -> None:
    policy = BackoffPolicy(initial=0.5, maximum=3.0, stable=100.0, fast=1.0, give_up_after=None)
    assert delays(Backoff(policy), [5.0] * 5) == [0.5, 1.0, 2.0, 3.0, 3.0]


def test_a_stable_run_starts_again_from_initial() -> None:
    backoff = Backoff(BackoffPolicy())
    assert delays(backoff, [SLOW] * 5) == [1, 2, 4, 8, 16]
    assert backoff.crashed(60.0) == 1  # ran `stable` seconds: the next crash is a first crash
    assert delays(backoff, [SLOW, SLOW]) == [2, 4]
    assert backoff.crashed(3600.0) == 1


def test_a_crash_loop_is_given_up_after_give_up_after_fast_crashes() -> None:
    backoff = Backoff(BackoffPolicy(give_up_after=5))
    got = delays(backoff, [0.5] * 5)
    assert got[:4] == [1, 2, 4, 8]
    assert got[4] is None


def test_give_up_after_one_gives_up_at_the_first_fast_crash_but_not_a_slow_one() -> None:
    assert Backoff(BackoffPolicy(give_up_after=1)).crashed(SLOW) == 1
    assert Backoff(BackoffPolicy(give_up_after=1)).crashed(0.1) is None


def test_a_slow_crash_in_between_resets_the_fast_streak() -> None:
    backoff = Backoff(BackoffPolicy(give_up_after=3))
    got = delays(backoff, [1.0, 1.0, SLOW, 1.0, 1.0])
    assert None not in got  # never three fast crashes in a row
    assert got == [1, 2, 4, 8, 16]  # but the delay keeps growing: none of these runs was stable
    assert backoff.crashed(1.0) is None  # now three in a row


def test_a_crash_exactly_at_fast_seconds_is_not_fast() -> None:
    backoff = Backoff(BackoffPolicy(fast=10.0, give_up_after=2))
    assert None not in delays(backoff, [10.0, 10.0, 10.0])
    assert backoff.crashed(9.9) is not None
    assert backoff.crashed(9.9) is None


def test_give_up_after_none_never_gives_up() -> None:
    got = delays(Backoff(BackoffPolicy(give_up_after=None)), [0.01] * 50)
    assert None not in got
    assert got[-1] == 300


def test_a_long_outage_of_an_agent_never_given_up_keeps_the_maximum_delay() -> None:
    backoff = Backoff(BackoffPolicy(give_up_after=None))
    got = delays(backoff, [SLOW] * 1100)  # about 3.8 days of crashes at the 300 s cap
    assert got[-1] == 300
