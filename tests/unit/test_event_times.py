"""Events read in one burst are dated apart: the history names an entry by its time to the
millisecond (a notification's click opens the window there), so no two may share one."""

from __future__ import annotations

from acp_tray.events import NoticeReceived
from acp_tray.local_time import now
from acp_tray.protocol.notice import Notice
from acp_tray.state.history import record_of


def test_a_burst_of_notices_gets_one_history_time_each_in_order() -> None:
    events = [NoticeReceived("demo", "s1", Notice("warning", f"notice {n}")) for n in range(500)]
    times = [record_of(event)["time"] for event in events]
    assert len(set(times)) == len(times)  # 500 in a few ms: none shares a time
    assert [event.time for event in events] == sorted(event.time for event in events)


def test_event_times_stay_close_to_the_clock() -> None:
    before = now()
    event = NoticeReceived("demo", "s1", Notice("info", "one"))
    after = now()
    assert before <= event.time and (event.time - after).total_seconds() < 1.0
