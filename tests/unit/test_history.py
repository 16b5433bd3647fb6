"""The local history file: complete records, bounded by rotation, and never fatal to presentation."""

from __future__ import annotations

import logging
import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from acp_tray.events import NoticeMalformed, NoticeReceived
from acp_tray.files import private
from acp_tray.presentation.router import Decision
from acp_tray.protocol.notice import Notice
from acp_tray.state.history import HistoryWriter, history_files, read_history
from tests.support.platforms import posix_only


def received(title: str, **kw: object) -> NoticeReceived:
    return NoticeReceived("agent-a", "sess-1", Notice("warning", title, **kw))  # type: ignore[arg-type]


def test_records_keep_the_agents_strings_exactly(tmp_path: Path) -> None:
    writer = HistoryWriter(tmp_path / "h.jsonl")
    hostile = "<b>bold</b> \u202e reversed \x1b[31m red \ud800 lone"
    writer.append(received(hostile, description="line1\nline2", meta={"k": 1}))
    writer.append(NoticeMalformed("agent-a", "sess-1", "update.title", "must not be empty", {"update": {"title": ""}}))
    writer.close()
    first, second = list(read_history(tmp_path / "h.jsonl"))
    assert isinstance(first, dict) and isinstance(second, dict)
    assert first["title"] == hostile and first["description"] == "line1\nline2" and first["meta"] == {"k": 1}
    assert first["kind"] == "notice" and first["severity"] == "warning" and first["session_id"] == "sess-1"
    assert second["kind"] == "malformed" and second["field"] == "update.title" and second["title"] == ""
    assert first["route"] is None and first["suppressed"] is None and first["count"] == 1  # no decision given


def test_records_say_what_was_decided_and_why(tmp_path: Path) -> None:
    writer = HistoryWriter(tmp_path / "h.jsonl")
    writer.append(received("held"), Decision("both", False, True, "dnd", 3))
    writer.close()
    (record,) = list(read_history(tmp_path / "h.jsonl"))
    assert isinstance(record, dict)
    assert (record["route"], record["suppressed"], record["count"], record["notified"], record["tray"]) == (
        "both",
        "dnd",
        3,
        False,
        True,
    )


def test_history_is_bounded_by_rotation(tmp_path: Path) -> None:
    path = tmp_path / "h.jsonl"
    writer = HistoryWriter(path, max_bytes=10_000, backups=2)
    for i in range(2000):
        writer.append(received(f"notice {i:05d}", description="x" * 50))
    writer.close()
    files = history_files(path, backups=2)
    assert len(files) == 3
    assert sum(f.stat().st_size for f in files) <= 3 * 10_000
    titles = [r["title"] for r in read_history(path) if isinstance(r, dict)]
    assert titles[-1] == "notice 01999"
    assert titles == sorted(titles)  # oldest first across rotated files


@posix_only("/dev/full and symlinks")
def test_disk_full_is_reported_once_and_never_raises(
    tmp_path: Path, caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    if not os.path.exists("/dev/full"):
        pytest.skip("no /dev/full on this system")
    monkeypatch.setattr(private, "NOFOLLOW", 0)  # the link to /dev/full is this test's own
    monkeypatch.setattr(stat, "S_ISREG", stat.S_ISCHR)  # and so is the device in a file's place
    path = tmp_path / "h.jsonl"
    path.symlink_to("/dev/full")
    writer = HistoryWriter(path)
    with caplog.at_level(logging.WARNING):
        for i in range(5):
            writer.append(received(f"n{i}"))
    warnings = [r for r in caplog.records if "cannot write the history file" in r.getMessage()]
    assert len(warnings) == 1


def test_unreadable_lines_are_kept_as_text(tmp_path: Path) -> None:
    path = tmp_path / "h.jsonl"
    path.write_text('not json\n{"time": "bad"}\n[1]\n', encoding="utf-8")
    items = list(read_history(path))
    assert items[0] == "not json" and items[2] == "[1]"
    assert items[1] == {"time": "bad"}


def test_every_record_has_the_documented_keys(tmp_path: Path) -> None:
    writer = HistoryWriter(tmp_path / "h.jsonl")
    writer.append(received("ok"), Decision("tray", False, True, None, 1))
    writer.append(NoticeMalformed("agent-a", None, "update.severity", "missing (required)", {"update": {}}))
    writer.close()
    documented = {"time", "agent", "session_id", "source", "kind", "severity", "title", "description", "meta", "reason"}
    documented |= {"route", "suppressed", "count", "notified", "tray", "pushed"}
    notice, malformed = (r for r in read_history(tmp_path / "h.jsonl") if isinstance(r, dict))
    assert set(notice) == documented
    assert set(malformed) == documented | {"field", "update", "raw"}


def _history_cli(*args: str) -> subprocess.CompletedProcess[str]:
    from tests.support.daemons import cli_env
    from tests.support.repo import ROOT

    return subprocess.run(
        [sys.executable, "-m", "acp_tray", "history", *args],
        env=cli_env(),
        capture_output=True,
        encoding="utf-8",  # what acp-tray writes everywhere (Windows' default here is its ANSI code page)
        cwd=ROOT,
    )


def test_history_n_counts_from_the_end_and_refuses_a_negative_count() -> None:
    from acp_tray.files import paths

    writer = HistoryWriter(paths.history_file())
    for title in ("one", "two", "three"):
        writer.append(received(title))
    writer.close()
    last_two = _history_cli("-n", "2")
    assert last_two.returncode == 0 and [line.split("  ")[-1] for line in last_two.stdout.splitlines()] == [
        "two",
        "three",
    ]
    none = _history_cli("-n", "0")
    assert none.returncode == 0 and none.stdout == ""  # like `tail -n 0`: nothing, not everything
    negative = _history_cli("-n", "-1")
    assert negative.returncode == 2 and negative.stdout == ""
    assert "-1 is negative" in negative.stderr and "Traceback" not in negative.stderr
    assert len(_history_cli().stdout.splitlines()) == 3
    writer = HistoryWriter(paths.history_file())
    writer.append(received("held"), Decision("both", False, True, "dnd", 1, "do not disturb (on)"))
    writer.close()
    assert _history_cli("-n", "1").stdout.rstrip().endswith("held  suppressed: dnd · why: do not disturb (on)")


def test_an_ordinary_notice_records_why_it_took_its_route(tmp_path: Path) -> None:
    """The README says the history says why: the setting that chose the route, and what held it back."""
    from datetime import UTC, datetime

    from acp_tray.prefs.model import Preferences
    from acp_tray.presentation.router import Router
    from tests.support.clock import FakeClock

    start = datetime(2026, 11, 27, 15, 0, tzinfo=UTC)
    prefs = Preferences.model_validate(
        {"agents": {"agent-a": {"command": ["a"], "route": {"error": "tray"}}}, "dnd": {"enabled": True}}
    )
    router = Router(prefs, FakeClock(start))
    writer = HistoryWriter(tmp_path / "h.jsonl")
    for notice in (received("w"), NoticeReceived("agent-a", "s", Notice("error", "e")), received("w")):
        writer.append(notice, router.route(notice)[0])
    writer.close()
    held, overridden, repeat = list(read_history(tmp_path / "h.jsonl"))
    assert isinstance(held, dict) and isinstance(overridden, dict) and isinstance(repeat, dict)
    assert held["reason"].startswith('[severity.warning] route = "both"; do not disturb (on')
    assert "tray only" in held["reason"]
    assert overridden["reason"] == '[agents.agent-a.route] error = "tray"'
    assert "repeat ×2 within [coalesce] window" in repeat["reason"]
