"""The history newest first, a page at a time (state/history_pages.py): the same records as
`read_history` in the other order, across block and file boundaries; ids that survive new records
and rotation; filters; lines that are not records; and the DND switch the control API shares with
the CLI and the tray (presentation/dnd.py)."""

from __future__ import annotations

from datetime import datetime, time, timedelta
from pathlib import Path
from typing import Any

import pytest

from acp_tray.events import NoticeMalformed, NoticeReceived
from acp_tray.protocol.notice import Notice
from acp_tray.state import history_pages
from acp_tray.state.history import HistoryWriter, history_files, read_history
from acp_tray.state.history_pages import HistoryFilter, history_page, newest_first

MORNING = time(8, 0)
NOW = datetime(2026, 3, 2, 22, 30).astimezone()


def write(writer: HistoryWriter, start: int, count: int, agent: str = "a", severity: str = "info") -> None:
    for i in range(start, start + count):
        notice = Notice(severity, f"notice {i:04d}", f"about the number {i}")
        writer.append(NoticeReceived(agent, "s", notice))


def titles(records: list[dict[str, Any]]) -> list[str]:
    return [str(r.get("title")) for r in records]


@pytest.fixture
def small_blocks(monkeypatch: pytest.MonkeyPatch) -> None:
    """Blocks shorter than a line: every line is gathered across blocks."""
    monkeypatch.setattr(history_pages, "BLOCK", 37)


@pytest.mark.parametrize("block", [37, 4096, 64 * 1024])
def test_newest_first_is_the_history_backwards_across_files(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, block: int
) -> None:
    monkeypatch.setattr(history_pages, "BLOCK", block)
    path = tmp_path / "h.jsonl"
    writer = HistoryWriter(path, max_bytes=4000)
    write(writer, 0, 60)
    writer.append(NoticeMalformed("b", "s", "update.title", "must not be empty", {"update": {"title": ""}}))
    writer.close()
    with path.open("a") as handle:
        handle.write("not json\n\n[1, 2]\n")
    assert len(history_files(path)) == 4  # rotated three times: the oldest records are gone
    backwards = [record for _, record in newest_first(path)]
    assert backwards == list(read_history(path))[::-1]
    assert backwards[:3] == ["[1, 2]", "not json", backwards[2]] and backwards[2]["kind"] == "malformed"  # type: ignore[index]


def test_pages_go_back_with_next_until_there_are_no_more(tmp_path: Path, small_blocks: None) -> None:
    path = tmp_path / "h.jsonl"
    writer = HistoryWriter(path, max_bytes=3000)
    write(writer, 0, 40)
    writer.close()
    seen: list[str] = []
    page = history_page(path, HistoryFilter(), limit=15)
    seen += titles(page.records)
    while page.next is not None:
        page = history_page(path, HistoryFilter(), before=page.next, limit=15)
        seen += titles(page.records)
    everything = [r["title"] for r in read_history(path) if isinstance(r, dict)]
    assert seen == everything[::-1] and len(seen) == 40 and len(history_files(path)) > 1
    assert len(page.records) == 10  # 40 = 15 + 15 + 10: the last page says there is none after it


def test_ids_stay_the_same_as_records_are_added_and_the_files_rotate(tmp_path: Path) -> None:
    path = tmp_path / "h.jsonl"
    writer = HistoryWriter(path, max_bytes=2650)  # records carry `pushed` now: two rotations for 26 of them
    write(writer, 0, 12)
    first = history_page(path, HistoryFilter(), limit=5)
    ids = {r["title"]: r["id"] for r in first.records}
    assert first.next is not None
    write(writer, 12, 14)  # two rotations later (the first page's file is still kept, renamed twice)
    writer.close()
    page = history_page(path, HistoryFilter(), before=first.next, limit=5)
    assert titles(page.records) == [f"notice {i:04d}" for i in range(6, 1, -1)]  # where the first page left off
    later = {r["title"]: r["id"] for r in history_page(path, HistoryFilter(), limit=200).records}
    assert all(later[title] == ids[title] for title in ids) and len(history_files(path)) == 3


def test_the_writer_gives_each_record_the_id_the_readers_find_it_by(tmp_path: Path) -> None:
    """What the `watch` stream sends as a new record carries the id `history` pages it under:
    across rotations, and after a record left torn (the next one starts on a line of its own)."""
    path = tmp_path / "h.jsonl"
    path.write_text('{"time": "torn', encoding="utf-8")  # a crash mid-record
    writer = HistoryWriter(path, max_bytes=1500)
    written: dict[str, int] = {}
    for i in range(12):
        record = writer.append(NoticeReceived("a", "s", Notice("info", f"notice {i:04d}")))
        written[record["title"]] = record["id"]
    writer.close()
    assert len(history_files(path)) == 3
    found = {str(r.get("title")): r["id"] for r in history_page(path, HistoryFilter(), limit=200).records}
    assert {title: found[title] for title in written} == written and len(set(written.values())) == 12


def test_a_cursor_into_a_file_rotated_away_finds_nothing(tmp_path: Path) -> None:
    path = tmp_path / "h.jsonl"
    writer = HistoryWriter(path, max_bytes=1000)
    write(writer, 0, 3)
    cursor = history_page(path, HistoryFilter(), limit=1).next
    write(writer, 3, 100)  # the file it was in is long gone
    writer.close()
    assert cursor is not None
    assert history_page(path, HistoryFilter(), before=cursor) == history_pages.HistoryPage([], None)
    assert history_page(path, HistoryFilter(), before=12345).records == []  # an id that never was


def test_filters_by_agent_severity_class_source_and_text(tmp_path: Path) -> None:
    path = tmp_path / "h.jsonl"
    writer = HistoryWriter(path)
    write(writer, 0, 3, agent="alpha", severity="error")
    write(writer, 3, 3, agent="beta", severity="_vendor.fatal")  # an extension severity: class "other"
    writer.append(NoticeReceived("acp-tray", "", Notice("warning", "Preferences not applied"), source="acp-tray"))
    writer.close()
    with path.open("a") as handle:
        handle.write("Notice 0001 in a torn line\n")

    def shown(**only: Any) -> list[str]:
        records = history_page(path, HistoryFilter(**only)).records
        return [str(r.get("title", r.get("unreadable"))) for r in records]

    assert shown(agent="alpha") == ["notice 0002", "notice 0001", "notice 0000"]
    assert shown(severity="other") == ["notice 0005", "notice 0004", "notice 0003"]
    assert shown(severity="warning") == shown(source="acp-tray") == ["Preferences not applied"]
    assert shown(agent="beta", severity="error") == []
    assert shown(text="NUMBER 4") == ["notice 0004"]  # the description, ignoring case
    assert shown(text="notice 0001") == ["Notice 0001 in a torn line", "notice 0001"]  # and a line that is not a record
    assert shown(text="ALPH") == ["notice 0002", "notice 0001", "notice 0000"]  # the agent's name
    assert len(shown()) == 8


@pytest.mark.parametrize(
    ("mode", "value", "switch"),
    [
        ("off", None, (False, None)),
        ("on", None, (True, None)),
        ("for", "30m", (True, NOW + timedelta(minutes=30))),
        ("for", "tomorrow", (True, datetime(2026, 3, 3, 8, 0).astimezone())),
        ("until", "23:00", (True, datetime(2026, 3, 2, 23, 0).astimezone())),
        ("until", "tomorrow", (True, datetime(2026, 3, 3, 8, 0).astimezone())),
    ],
)
def test_the_dnd_switch_as_the_cli_the_tray_and_the_control_api_set_it(
    mode: Any, value: str | None, switch: tuple[bool, datetime | None]
) -> None:
    from acp_tray.presentation.dnd import dnd_switch

    assert dnd_switch(mode, value, NOW, MORNING) == switch


@pytest.mark.parametrize(
    ("mode", "value", "said"),
    [
        ("for", None, 'for how long? give a duration, e.g. "30m"'),
        ("until", " ", 'until when? give a time, e.g. "14:00"'),
        ("for", "soon", "not a duration: 'soon'"),
        ("until", "25:00", "not a time of day: '25:00'"),
    ],
)
def test_a_dnd_switch_without_a_good_value_says_what_to_give(mode: Any, value: str | None, said: str) -> None:
    from acp_tray.presentation.dnd import DurationError, dnd_switch

    with pytest.raises(DurationError) as refused:
        dnd_switch(mode, value, NOW, MORNING)
    assert str(refused.value).startswith(said)
