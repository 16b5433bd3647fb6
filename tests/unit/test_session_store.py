"""Named sessions survive a restart: the session ids kept in the state dir, and what happens to a bad file."""

from __future__ import annotations

import json
import logging
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from acp_tray.agents.sessions import MAX_SESSIONS, SessionKey, SessionStore, SessionStoreError


@pytest.fixture
def path(tmp_path: Path) -> Path:
    return tmp_path / "state" / "acp-tray" / "sessions.json"  # the directory does not exist yet


def test_a_session_id_survives_a_restart(path: Path) -> None:
    key = SessionKey("claude", "/home/me/project", "refactor")
    SessionStore(path).put(key, "sid-1")
    again = SessionStore(path)
    assert again.get(key) == "sid-1"
    assert again.known() == [key]


def test_any_string_is_kept_and_read_back_the_same(path: Path) -> None:
    """Item 3 of the security review: a lone surrogate (from an agent's JSON escape, or argv that was
    not UTF-8) or a NUL in a key or an id cannot stop the list from being written."""
    odd = SessionKey("agent", "/home/me/caf\udce9", "s-\ud800")
    plain = SessionKey("agent", "/home/me", "plain")
    store = SessionStore(path)
    store.put(odd, "id-\ud800-\x00-bad")
    store.put(plain, "sid-2")  # the next one is written too
    again = SessionStore(path)
    assert again.get(odd) == "id-\ud800-\x00-bad" and again.get(plain) == "sid-2"
    assert path.read_bytes().isascii()


def test_an_entry_that_could_not_be_written_is_not_kept(tmp_path: Path) -> None:
    blocked = tmp_path / "a-file"
    blocked.write_text("not a directory", encoding="utf-8")
    store = SessionStore(blocked / "sessions.json")
    key = SessionKey("agent", "/p")
    with pytest.raises(SessionStoreError, match="could not save the session list"):
        store.put(key, "sid-1")
    assert store.get(key) is None and store.known() == []  # the caller learnt it; nothing half-kept


def test_the_newest_id_of_a_key_wins_after_a_restart(path: Path) -> None:
    key = SessionKey("claude", "/home/me/project")
    store = SessionStore(path)
    store.put(key, "sid-1")
    store.put(key, "sid-2")
    assert store.get(key) == "sid-2"
    assert SessionStore(path).get(key) == "sid-2"
    assert SessionStore(path).known() == [key]


def test_keys_are_separated_by_agent_cwd_and_name(path: Path) -> None:
    keys = [
        SessionKey("claude", "/p"),
        SessionKey("gemini", "/p"),
        SessionKey("claude", "/q"),
        SessionKey("claude", "/p", "refactor"),
    ]
    store = SessionStore(path)
    for n, key in enumerate(keys):
        store.put(key, f"sid-{n}")
    for reopened in (store, SessionStore(path)):
        assert [reopened.get(key) for key in keys] == ["sid-0", "sid-1", "sid-2", "sid-3"]
    assert store.get(SessionKey("claude", "/other")) is None
    assert store.get(SessionKey("codex", "/p")) is None


def test_the_default_session_name_is_default(path: Path) -> None:
    store = SessionStore(path)
    store.put(SessionKey("claude", "/p"), "sid-1")
    assert store.get(SessionKey("claude", "/p", "default")) == "sid-1"


def test_known_lists_the_sessions_of_one_agent_or_all(path: Path) -> None:
    store = SessionStore(path)
    store.put(SessionKey("claude", "/p", "b"), "1")
    store.put(SessionKey("gemini", "/p"), "2")
    store.put(SessionKey("claude", "/p", "a"), "3")
    assert {k.name for k in store.known("claude")} == {"a", "b"}
    assert all(k.agent == "claude" for k in store.known("claude"))
    assert [k.agent for k in store.known("gemini")] == ["gemini"]
    assert store.known("codex") == []
    assert len(store.known()) == 3


@pytest.mark.parametrize(
    "content",
    [
        b"{not json",
        b'{"version": 1, "sessions": [\xff]}',  # not UTF-8
        b"null",
        b"[]",
        b'{"version": 1}',
        b'{"version": 1, "sessions": 5}',
        b'{"version": 1, "sessions": [{"agent": "claude"}]}',
        b'{"version": 1, "sessions": ["x"]}',
    ],
)
def test_an_unreadable_file_is_set_aside_and_the_store_starts_empty(
    path: Path, content: bytes, caplog: pytest.LogCaptureFixture
) -> None:
    path.parent.mkdir(parents=True)
    path.write_bytes(content)
    with caplog.at_level(logging.WARNING, logger="acp_tray.agents.sessions"):
        store = SessionStore(path)
    assert store.known() == []
    aside = path.with_name("sessions.json.unreadable")
    assert aside.read_bytes() == content  # kept for the person to look at, not lost
    assert not path.exists()
    warnings = [r for r in caplog.records if r.levelno == logging.WARNING]
    assert warnings and str(path) in warnings[0].getMessage() and str(aside) in warnings[0].getMessage()
    # and the store works afresh
    store.put(SessionKey("claude", "/p"), "sid-1")
    assert SessionStore(path).get(SessionKey("claude", "/p")) == "sid-1"


def test_a_file_broken_half_way_keeps_nothing_from_it(path: Path) -> None:
    path.parent.mkdir(parents=True)
    good = {"agent": "claude", "cwd": "/p", "name": "default", "session_id": "sid-1"}
    path.write_text(json.dumps({"version": 1, "sessions": [good, {"agent": "x"}]}), encoding="utf-8")
    assert SessionStore(path).known() == []


def test_a_missing_file_is_an_empty_store_without_a_warning(path: Path, caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.WARNING):
        assert SessionStore(path).known() == []
    assert not caplog.records
    assert not path.exists()  # nothing written until there is something to keep


def test_without_a_path_nothing_persists(isolated_dirs: Path) -> None:
    before = sorted(p for p in isolated_dirs.rglob("*"))
    store = SessionStore(None)
    key = SessionKey("claude", "/p")
    store.put(key, "sid-1")
    assert store.get(key) == "sid-1"  # it still works in memory
    assert sorted(p for p in isolated_dirs.rglob("*")) == before
    assert SessionStore(None).get(key) is None


START = datetime(2020, 1, 1, tzinfo=UTC)


def test_more_than_max_sessions_keeps_the_newest(path: Path) -> None:
    # a full file whose entries were updated at distinct past times, listed in an order that is not their age
    path.parent.mkdir(parents=True)
    entries = [
        {
            "agent": "claude",
            "cwd": f"/p/{n:04d}",
            "name": "default",
            "session_id": f"sid-{n}",
            "updated": (START + timedelta(minutes=(n + MAX_SESSIONS // 2) % MAX_SESSIONS)).isoformat(
                timespec="seconds"
            ),
        }
        for n in range(MAX_SESSIONS)
    ]
    oldest = min(entries, key=lambda e: e["updated"])
    assert oldest is not entries[0]  # the test would pass by accident if the first entry were the oldest
    path.write_text(json.dumps({"version": 1, "sessions": entries}), encoding="utf-8")

    store = SessionStore(path)
    assert len(store.known()) == MAX_SESSIONS
    newest = SessionKey("gemini", "/new")
    store.put(newest, "sid-new")

    for reopened in (store, SessionStore(path)):
        assert len(reopened.known()) == MAX_SESSIONS
        assert reopened.get(newest) == "sid-new"
        assert reopened.get(SessionKey("claude", oldest["cwd"])) is None
        assert reopened.get(SessionKey("claude", entries[0]["cwd"])) == entries[0]["session_id"]
