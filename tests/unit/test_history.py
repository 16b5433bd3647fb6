"""The local history file: complete records, bounded by rotation, and never fatal to presentation."""

from __future__ import annotations

import logging
import os
from pathlib import Path

import pytest

from acp_tray.events import NoticeMalformed, NoticeReceived
from acp_tray.history import HistoryWriter, history_files, read_history
from acp_tray.presentation.router import Decision
from acp_tray.protocol.notice import Notice
from tests.platforms import posix_only


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
def test_disk_full_is_reported_once_and_never_raises(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    if not os.path.exists("/dev/full"):
        pytest.skip("no /dev/full on this system")
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
    documented |= {"route", "suppressed", "count", "notified", "tray"}
    notice, malformed = (r for r in read_history(tmp_path / "h.jsonl") if isinstance(r, dict))
    assert set(notice) == documented
    assert set(malformed) == documented | {"field", "update", "raw"}
