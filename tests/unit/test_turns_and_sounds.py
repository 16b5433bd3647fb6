"""Short turns and sounds, by the routing policy with a fake clock: `[turns] notify_after` keeps a short
turn's "Finished" to the tray, `[severity.CLASS] sound` and `[approvals] sound` pick a notification's
sound, and a bad sound name is told in plain words."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

import pytest

from acp_tray.events import NoticeReceived, QueueChanged, TurnEnded
from acp_tray.notifiers.content import notification_of
from acp_tray.notifiers.osascript import MAC_SOUND, SCRIPT, SCRIPT_WITH_SOUND, osascript_argv
from acp_tray.prefs.load import PreferencesError, read_preferences
from acp_tray.prefs.model import Preferences
from acp_tray.presentation.actions import ApprovalAnswer
from acp_tray.presentation.own_notices import own_notice
from acp_tray.presentation.router import Router
from acp_tray.presentation.turn_length import TurnLengths
from acp_tray.protocol.notice import Notice
from tests.support.clock import FakeClock

START = datetime(2026, 12, 2, 10, 0, tzinfo=ZoneInfo("Europe/Berlin"))


def router(**data: Any) -> tuple[Router, FakeClock]:
    clock = FakeClock(START)
    return Router(Preferences.model_validate({"coalesce": {"window": 0}, **data}), clock), clock


def finished(agent: str = "bot") -> NoticeReceived:
    own = own_notice(TurnEnded(agent, "s1", "default", "end_turn"))
    assert own is not None and own.finished
    return NoticeReceived(own.agent, own.session_id, own.notice, source="acp-tray")


@pytest.mark.parametrize(("seconds", "pops_up"), [(1.0, False), (19.9, False), (20.0, True), (30.0, True)])
def test_a_finished_turn_pops_up_only_when_it_took_notify_after_or_longer(seconds: float, pops_up: bool) -> None:
    r, _ = router()
    decision, presentation = r.route(finished(), turn_seconds=seconds)
    assert presentation is not None and presentation.tray  # listed whatever its length
    assert decision.notify is pops_up and presentation.notify is pops_up
    assert decision.suppressed == (None if pops_up else "short_turn")
    if not pops_up:
        assert f"a {seconds:.1f} s turn, under [turns] notify_after = 20 s" in decision.reason


def test_notify_after_0_pops_up_every_turn_and_an_unknown_length_pops_up() -> None:
    r, _ = router(turns={"notify_after": 0})
    assert r.route(finished(), turn_seconds=0.0)[0].notify
    r, _ = router()
    assert r.route(finished(), turn_seconds=None)[0].notify  # work the agent started itself: no start seen


def test_a_short_turn_goes_to_the_tray_even_where_the_route_is_notify_only() -> None:
    r, _ = router(severity={"info": {"route": "notify"}})
    decision, presentation = r.route(finished(), turn_seconds=1.0)
    assert decision.route == "notify" and decision.suppressed == "short_turn"
    assert presentation is not None and (presentation.notify, presentation.tray) == (False, True)
    assert r.missed_during_dnd == 0


def test_only_finished_is_held_back_failed_and_stopped_turns_are_not_marked() -> None:
    for event in (
        TurnEnded("bot", "s1", "default", None, "boom"),
        TurnEnded("bot", "s1", "default", "max_tokens"),
        TurnEnded("bot", "s1", "default", "weird"),
    ):
        own = own_notice(event)
        assert own is not None and not own.finished


def test_turn_lengths_come_from_the_clock_between_running_and_its_end() -> None:
    clock = FakeClock(START)
    lengths = TurnLengths(clock)
    lengths.queue_changed(QueueChanged("bot", "s1", "default", True, 0))
    clock.advance(12)
    lengths.queue_changed(QueueChanged("bot", "s1", "default", True, 1))  # a prompt queued behind it
    clock.advance(18)
    lengths.queue_changed(QueueChanged("bot", "s1", "default", False, 1))
    clock.advance(5)  # not counted: the turn had stopped running
    assert lengths.ended(TurnEnded("bot", "s1", "default", "end_turn")) == 30
    assert lengths.ended(TurnEnded("bot", "s1", "default", "end_turn")) is None  # asked once
    lengths.queue_changed(QueueChanged("bot", "s2", "default", True, 0))
    clock.advance(2)
    assert lengths.ended(TurnEnded("bot", "s2", "default", None, "interrupted")) == 2  # before "not running"
    lengths.queue_changed(QueueChanged("bot", "s2", "default", False, 0))
    assert lengths.ended(TurnEnded("bot", "s2", "default", "end_turn")) is None


@pytest.mark.parametrize(
    ("severity", "sound"),
    [("info", ""), ("warning", "dialog-warning"), ("error", "dialog-error"), ("_acme.audit", "")],
)
def test_default_sounds_by_severity_class(severity: str, sound: str) -> None:
    r, _ = router()
    presentation = r.route(NoticeReceived("bot", "s1", Notice(severity, "T")))[1]
    assert presentation is not None and presentation.sound == sound


def test_an_approval_has_its_own_sound_and_each_is_a_preference() -> None:
    answer = ((ApprovalAnswer("7", "allow").encode(), "Allow"),)
    asked = NoticeReceived(
        "bot", "s1", Notice("warning", "Needs approval"), source="acp-tray", actions=answer, attention="approval"
    )
    r, _ = router()
    assert r.route(asked)[1].sound == "message-new-instant"  # type: ignore[union-attr]
    r, _ = router(approvals={"sound": "dialog-question"}, severity={"info": {"sound": "message-new-instant"}})
    assert r.route(asked)[1].sound == "dialog-question"  # type: ignore[union-attr]
    info = r.route(NoticeReceived("bot", "s1", Notice("info", "T")))[1]
    assert info is not None and info.sound == "message-new-instant" and info.timeout == 5  # its timeout kept
    r, _ = router(approvals={"sound": False})  # false: silent, as ""
    assert r.route(asked)[1].sound == ""  # type: ignore[union-attr]


def test_no_sound_for_what_is_not_a_new_pop_up() -> None:
    r, clock = router(coalesce={"window": 30})
    assert r.route(NoticeReceived("bot", "s1", Notice("error", "E")))[1].sound == "dialog-error"  # type: ignore[union-attr]
    clock.advance(1)
    repeat = r.route(NoticeReceived("bot", "s1", Notice("error", "E")))[1]
    assert repeat is not None and repeat.notify and repeat.count == 2 and repeat.sound == ""  # updated in place
    r, clock = router(dnd={"enabled": True}, coalesce={"window": 30})
    held = r.route(NoticeReceived("bot", "s1", Notice("error", "E")))[1]
    assert held is not None and not held.notify and held.sound == ""
    r.update_prefs(Preferences.model_validate({"coalesce": {"window": 30}}))  # DND off
    clock.advance(1)
    first_shown = r.route(NoticeReceived("bot", "s1", Notice("error", "E")))[1]
    assert first_shown is not None and first_shown.count == 2 and first_shown.sound == "dialog-error"  # a new pop-up


@pytest.mark.parametrize("value", ['"Dialog Warning"', '"dialog_warning"', '"/usr/share/sounds/x.oga"', '"-x"'])
def test_a_bad_sound_name_is_told_in_plain_words(tmp_path: Path, value: str) -> None:
    path = tmp_path / "config.toml"
    path.write_text(f"[severity.warning]\nsound = {value}\n", encoding="utf-8")
    with pytest.raises(PreferencesError) as info:
        read_preferences(path)
    said = str(info.value)
    assert f"{path}:2: `sound` in [severity.warning]: expected a sound name" in said
    assert 'like "dialog-warning"' in said and '"" for no sound' in said


def test_a_sound_that_is_not_text_and_a_bad_notify_after_are_told(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    path.write_text("[approvals]\nsound = 3\n", encoding="utf-8")
    with pytest.raises(PreferencesError, match=r"`sound` in \[approvals\] must be text in quotes"):
        read_preferences(path)
    path.write_text("[turns]\nnotify_after = -1\n", encoding="utf-8")
    with pytest.raises(PreferencesError, match=r"`notify_after` in \[turns\] must be at least 0, not -1"):
        read_preferences(path)


def test_macos_plays_its_own_sound_for_a_notification_with_one() -> None:
    r, _ = router()
    loud = r.route(NoticeReceived("bot", "s1", Notice("error", "E")))[1]
    quiet = r.route(NoticeReceived("bot", "s1", Notice("info", "I")))[1]
    assert loud is not None and quiet is not None
    assert osascript_argv("osascript", notification_of(loud)) == [
        "osascript",
        "-e",
        SCRIPT_WITH_SOUND,
        "bot: E",
        " ",
        MAC_SOUND,
    ]
    assert osascript_argv("osascript", notification_of(quiet)) == ["osascript", "-e", SCRIPT, "bot: I", " "]
    assert "sound name (item 3 of argv)" in SCRIPT_WITH_SOUND and "sound" not in SCRIPT
