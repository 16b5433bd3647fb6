"""One daemon per user: `daemon.lock` taken, refused to a second daemon with the owner's pid,
taken over after a crash, and removed on a clean stop (also on Windows, where an open file
cannot be deleted and a locked byte range cannot be read by another handle)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from acp_tray.control.instance import AlreadyRunningError, InstanceLock


def test_a_clean_release_removes_the_lock_file(tmp_path: Path) -> None:
    lock = InstanceLock(tmp_path / "daemon.lock")
    assert lock.acquire() is None
    assert (tmp_path / "daemon.lock").read_text().split() == [str(os.getpid())]
    lock.release()
    assert not (tmp_path / "daemon.lock").exists()  # Windows: failed silently while the file was open


def test_the_next_start_after_a_clean_stop_does_not_warn(tmp_path: Path) -> None:
    first = InstanceLock(tmp_path / "daemon.lock")
    first.acquire()
    first.release()
    second = InstanceLock(tmp_path / "daemon.lock")
    try:
        assert second.acquire() is None  # not "took over the lock left by a daemon that did not stop cleanly"
    finally:
        second.release()


def test_a_second_daemon_is_told_the_owners_pid(tmp_path: Path) -> None:
    owner = InstanceLock(tmp_path / "daemon.lock")
    owner.acquire()
    try:
        with pytest.raises(AlreadyRunningError) as raised:  # Windows: the pid is outside the locked range
            InstanceLock(tmp_path / "daemon.lock").acquire()
        assert raised.value.pid == os.getpid()
        assert str(raised.value) == f"acp-tray is already running (pid {os.getpid()})"
    finally:
        owner.release()
    assert not (tmp_path / "daemon.lock").exists()


def test_a_lock_left_by_a_crashed_daemon_is_taken_over_and_said_so(tmp_path: Path) -> None:
    (tmp_path / "daemon.lock").write_text("999999\n")  # written by a daemon that is gone: nobody holds it
    lock = InstanceLock(tmp_path / "daemon.lock")
    try:
        assert lock.acquire() == "took over the lock left by a daemon that did not stop cleanly (pid 999999)"
        assert (tmp_path / "daemon.lock").read_text().split() == [str(os.getpid())]
    finally:
        lock.release()
