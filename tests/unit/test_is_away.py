"""Whether the person is away, by an away source: idle long enough or locked, and how several
sources combine into one answer; with nothing to read, the source named "none"."""

from __future__ import annotations

import sys
from dataclasses import dataclass, field

import pytest

from acp_tray.away.select import away_source, is_away
from acp_tray.away.source import AwaySource, FirstAnswer, NoSource


@dataclass
class Fixed:
    """A source whose answers the test sets; it counts how often it was asked."""

    name: str = "fixed"
    idle: float | None = None
    is_locked: bool = False
    asked: list[str] = field(default_factory=list)

    def idle_seconds(self) -> float | None:
        self.asked.append("idle")
        return self.idle

    def locked(self) -> bool:
        self.asked.append("locked")
        return self.is_locked


@pytest.mark.parametrize(
    ("idle", "locked", "away"),
    [
        (None, False, False),  # cannot tell, not locked: not away
        (None, True, True),  # cannot tell the idle time, but the screen is locked
        (299.0, False, False),
        (300.0, False, True),  # idle for exactly the threshold
        (4000.0, False, True),
        (0.0, True, True),  # locked a moment after the last input
        (4000.0, True, True),
    ],
)
def test_away_is_locked_or_idle_for_at_least_the_threshold(idle: float | None, locked: bool, away: bool) -> None:
    assert is_away(Fixed(idle=idle, is_locked=locked), after=300) is away


def test_idle_enough_is_away_without_asking_whether_locked() -> None:
    source = Fixed(idle=600.0, is_locked=True)
    assert is_away(source, after=300)
    assert source.asked == ["idle"]  # the lock is a D-Bus round trip: not needed here


def test_the_first_source_that_can_tell_gives_the_idle_time_any_may_say_locked() -> None:
    x11, screensaver, logind = Fixed("X11 idle time", 12.0), Fixed("ScreenSaver"), Fixed("logind", 900.0)
    combined = FirstAnswer([x11, screensaver, logind])
    assert combined.name == "X11 idle time + ScreenSaver + logind"
    assert combined.idle_seconds() == 12.0 and logind.asked == []
    assert not is_away(combined, after=300)
    logind.is_locked = True
    assert combined.locked() and is_away(combined, after=300)
    x11.idle = None  # the X server went away: the next source that knows
    assert combined.idle_seconds() == 900.0


def test_the_none_source_is_never_away() -> None:
    none: AwaySource = NoSource()
    assert none.name == "none" and none.idle_seconds() is None and not none.locked()
    assert not is_away(none, after=0)


@pytest.mark.skipif(sys.platform in ("win32", "darwin"), reason="Linux/BSD: X11 and D-Bus sources")
def test_no_display_and_no_bus_is_the_none_source(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("DISPLAY", "WAYLAND_DISPLAY", "XDG_SESSION_ID"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("DBUS_SESSION_BUS_ADDRESS", "unix:path=/nonexistent/acp-tray-test-session-bus")
    monkeypatch.setenv("DBUS_SYSTEM_BUS_ADDRESS", "unix:path=/nonexistent/acp-tray-test-system-bus")
    source = away_source()
    assert source.name == "none" and source.idle_seconds() is None and not source.locked()


@pytest.mark.skipif(sys.platform in ("win32", "darwin"), reason="Linux/BSD: the X11 source")
def test_a_display_that_cannot_be_opened_is_no_x11_source(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DISPLAY", ":9999")  # no X server there
    monkeypatch.delenv("WAYLAND_DISPLAY", raising=False)
    monkeypatch.setenv("DBUS_SESSION_BUS_ADDRESS", "unix:path=/nonexistent/acp-tray-test-session-bus")
    monkeypatch.setenv("DBUS_SYSTEM_BUS_ADDRESS", "unix:path=/nonexistent/acp-tray-test-system-bus")
    assert away_source().name == "none"


@pytest.mark.skipif(sys.platform != "win32", reason="Windows: GetLastInputInfo (the Windows lane runs it under Wine)")
def test_on_windows_the_idle_time_is_get_last_input_infos() -> None:
    source = away_source()
    idle = source.idle_seconds()
    assert source.name == "GetLastInputInfo" and isinstance(idle, float) and idle >= 0
