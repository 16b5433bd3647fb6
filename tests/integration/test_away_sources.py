"""The away sources on a real desktop: the X server's idle time under the tests' Xvfb (it grows
while nothing happens; xdotool's pointer move resets it), and the D-Bus sources (logind's session
hints, the ScreenSaver service) against stand-ins on a private bus (tests/desktop/fake_login1.py:
the real logind needs systemd and a system bus, which the test machines lack). `doctor` names the
source in use."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Generator, Iterator
from pathlib import Path

import pytest

from acp_tray.away.select import away_source, is_away
from tests.desktop.session import start_session_bus, stop_processes
from tests.support.daemons import cli_env
from tests.support.trays import xdotool
from tests.support.waiting import until

NO_BUS = "unix:path=/nonexistent/acp-tray-test-bus"
FAKE_LOGIN1 = Path(__file__).resolve().parent.parent / "desktop" / "fake_login1.py"
SESSION = ("org.freedesktop.login1", "/org/freedesktop/login1/session/c7", "org.freedesktop.login1.Session")
SCREENSAVER = ("org.freedesktop.ScreenSaver", "/org/freedesktop/ScreenSaver", "org.freedesktop.ScreenSaver")


def doctor_away(env: dict[str, str]) -> dict[str, str]:
    result = subprocess.run(
        [sys.executable, "-m", "acp_tray", "doctor", "--json"], env=env, capture_output=True, text=True, timeout=60
    )
    assert result.stderr == "", result.stderr
    away: dict[str, str] = {check["name"]: check for check in json.loads(result.stdout)}["away"]
    return away


@pytest.fixture
def x11_only(desktop_env: dict[str, str], monkeypatch: pytest.MonkeyPatch) -> dict[str, str]:
    """The test desktop (Xvfb, a bus without a ScreenSaver service) and no system bus: X11 alone."""
    monkeypatch.setenv("DBUS_SYSTEM_BUS_ADDRESS", NO_BUS)
    monkeypatch.delenv("WAYLAND_DISPLAY", raising=False)
    return {**desktop_env, "DBUS_SYSTEM_BUS_ADDRESS": NO_BUS}


def test_the_x11_idle_time_grows_while_nothing_happens_and_input_resets_it(x11_only: dict[str, str]) -> None:
    source = away_source()
    assert source.name == "X11 idle time" and not source.locked()
    first = source.idle_seconds()
    assert first is not None
    idle = until(lambda: (source.idle_seconds() or 0) >= first + 1.0 and source.idle_seconds(), 10, "idle to grow")
    assert is_away(source, after=idle)
    xdotool(x11_only, "mousemove", "11", "11")
    xdotool(x11_only, "mousemove", "12", "12")  # one of the two moves the pointer, wherever it was
    after_input = source.idle_seconds()
    assert after_input is not None and after_input < idle
    assert not is_away(source, after=idle)


def test_doctor_names_the_x11_source_and_says_when_there_is_none(x11_only: dict[str, str]) -> None:
    env = cli_env(**x11_only)
    away = doctor_away(env)
    assert away["status"] == "note" and away["detail"].startswith("X11 idle time (idle "), away
    bare = {k: v for k, v in env.items() if k not in ("DISPLAY", "DBUS_SESSION_BUS_ADDRESS")}
    assert doctor_away(bare)["detail"] == 'no away source: push `when = "away"` never pushes'


def test_under_wayland_the_x_servers_idle_time_is_not_used(
    x11_only: dict[str, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("WAYLAND_DISPLAY", "wayland-0")  # X11 would see XWayland's clients' input only
    assert away_source().name == "none"


# logind and the ScreenSaver service, stand-ins on a private bus ------------------------------------


def fake_services(monkeypatch: pytest.MonkeyPatch, *args: str) -> Generator[str]:
    processes: list[subprocess.Popen[bytes]] = []
    try:
        address = start_session_bus(processes)
        fake = subprocess.Popen([sys.executable, str(FAKE_LOGIN1), address, *args], stdout=subprocess.PIPE)
        processes.append(fake)
        assert fake.stdout is not None and fake.stdout.readline() == b"ready\n"
        for name in ("DISPLAY", "WAYLAND_DISPLAY", "XDG_SESSION_ID"):
            monkeypatch.delenv(name, raising=False)
        monkeypatch.setenv("DBUS_SYSTEM_BUS_ADDRESS", address)  # logind's, as on the system bus
        monkeypatch.setenv("DBUS_SESSION_BUS_ADDRESS", address)  # the ScreenSaver's
        yield address
    finally:
        stop_processes(processes)


@pytest.fixture
def services(monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    yield from fake_services(monkeypatch)


def call(address: str, where: tuple[str, str, str], member: str, *args: str) -> None:
    destination, path, interface = where
    subprocess.run(
        [
            "dbus-send",
            f"--bus={address}",
            "--print-reply",
            f"--dest={destination}",
            path,
            f"{interface}.{member}",
            *args,
        ],
        check=True,
        capture_output=True,
        timeout=10,
    )


def test_logind_says_locked_and_idle_the_screensaver_says_active(services: str) -> None:
    source = away_source()
    assert source.name == "ScreenSaver + logind"
    # GNOME's ScreenSaver has no GetSessionIdleTime: logind's IdleHint, not set, is "not idle"
    assert source.idle_seconds() == 0.0 and not source.locked() and not is_away(source, after=300)
    call(services, SESSION, "SetLockedHint", "boolean:true")
    assert source.locked() and is_away(source, after=300)
    call(services, SESSION, "SetLockedHint", "boolean:false")
    assert not is_away(source, after=300)
    call(services, SESSION, "SetIdleHint", "boolean:true")  # idle since now, by the monotonic clock
    until(lambda: is_away(source, after=0.5), 10, "idle for half a second by IdleHint")
    idle = source.idle_seconds()
    assert idle is not None and 0.5 <= idle < 300 and not is_away(source, after=300)
    call(services, SESSION, "SetIdleHint", "boolean:false")
    call(services, SCREENSAVER, "SetActive", "boolean:true")
    assert source.idle_seconds() == 0.0 and source.locked() and is_away(source, after=300)


def test_the_session_is_xdg_session_ids_and_an_unknown_one_is_no_logind(
    services: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("XDG_SESSION_ID", "c7")
    source = away_source()
    assert source.name == "ScreenSaver + logind"
    call(services, SESSION, "SetLockedHint", "boolean:true")
    assert source.locked()
    monkeypatch.setenv("XDG_SESSION_ID", "c9")
    assert away_source().name == "ScreenSaver"


def test_a_screensaver_that_gives_the_idle_time_comes_before_logind(monkeypatch: pytest.MonkeyPatch) -> None:
    services = fake_services(monkeypatch, "--screensaver-idle-ms", "420000")  # KDE's: milliseconds
    next(services)
    try:
        source = away_source()
        assert source.idle_seconds() == 420.0 and is_away(source, after=300) and not is_away(source, after=421)
    finally:
        services.close()


def test_doctor_names_the_dbus_sources_and_a_locked_screen(services: str) -> None:
    call(services, SESSION, "SetLockedHint", "boolean:true")
    env = cli_env(DBUS_SYSTEM_BUS_ADDRESS=services, DBUS_SESSION_BUS_ADDRESS=services)
    env.pop("DISPLAY", None)
    assert doctor_away(env)["detail"] == "ScreenSaver + logind (idle 0 s, locked)"
