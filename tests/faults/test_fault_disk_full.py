"""Fault: the disk holding the history is full.

A 64 KiB tmpfs is mounted over the test's state directory (`$XDG_STATE_HOME/acp-tray`: the history,
the session list and the daemon's log) and filled to the last byte. The daemon must keep
presenting notices, say once that the history cannot be written, keep serving prompts (a new
session too, whose id it cannot save), not crash, and write the history again once there is room.
"""

from __future__ import annotations

import json
import os
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from acp_tray.files import paths
from tests.faults.faultkit import agent_table
from tests.support.config import write_config
from tests.support.daemons import DaemonProcess, cli, start
from tests.support.waiting import until

HISTORY_WARNING = "acp-tray: WARNING: cannot write the history file"


def fill(directory: Path) -> Path:
    """Fill the filesystem of `directory` to the last byte; the filler file (delete it to make room)."""
    filler = directory / "filler"
    fd = os.open(filler, os.O_WRONLY | os.O_CREAT, 0o600)
    try:
        while True:
            os.write(fd, b"\0" * 512)
    except OSError as exc:
        assert exc.errno == 28, exc  # ENOSPC
    finally:
        os.close(fd)
    return filler


@pytest.fixture
def tiny_state_dir(daemons: list[DaemonProcess]) -> Iterator[Path]:
    """A 64 KiB tmpfs over the state directory, unmounted at the end (after the daemon is gone)."""
    if os.geteuid() != 0:
        pytest.skip("needs root to mount a tmpfs")
    state = paths.state_dir()
    state.mkdir(parents=True)
    subprocess.run(["mount", "-t", "tmpfs", "-o", "size=64k,mode=0700", "tmpfs", str(state)], check=True)
    try:
        yield state
    finally:
        for daemon in daemons:
            if daemon.proc.poll() is None:
                daemon.proc.kill()
                daemon.proc.wait()
        subprocess.run(["umount", str(state)], check=False)
        if os.path.ismount(state):
            subprocess.run(["umount", "-l", str(state)], check=True)


def raw_history(state: Path) -> list[str]:
    return (state / "history.jsonl").read_text(encoding="utf-8").splitlines()


def titles_in(state: Path) -> list[str]:
    return [json.loads(line)["title"] for line in raw_history(state)]


def console_has(daemon: DaemonProcess, text: str) -> bool:
    try:
        daemon.wait_for_line(text, timeout=10)
    except AssertionError:
        return False
    return True


def running_on_a_full_disk(daemons: list[DaemonProcess], state: Path, tmp_path: Path) -> tuple[DaemonProcess, Path]:
    """A daemon with one agent whose first notice is recorded; then the disk under the history fills up."""
    write_config("[rate_limit]\nburst = 50\n\n" + agent_table("sa", tmp_path / "sa.log"))
    daemon = start(daemons, "sa", verbose=True)
    assert cli("prompt", "sa", "notice", "before the disk filled").returncode == 0
    until(lambda: "before the disk filled" in titles_in(state), what="the first record")
    return daemon, fill(state)


def test_full_disk_under_the_history_presentation_and_prompts_go_on(
    daemons: list[DaemonProcess], tiny_state_dir: Path, tmp_path: Path
) -> None:
    state = tiny_state_dir
    daemon, filler = running_on_a_full_disk(daemons, state, tmp_path)

    # full: every notice still reaches the console; prompts (a new session too) work
    long = "y" * 3000  # larger than the page the history file already has: the write must fail
    for n in range(4):
        result = cli("prompt", "sa", "notice", f"while full {n} {long}")
        assert result.returncode == 0, result.stderr
        assert console_has(daemon, f"WARNING  while full {n} "), n
    other = cli("prompt", "sa", "--session", "other", "say", "still", "answering")
    assert other.returncode == 0 and other.stdout == "still answering \n", other.stderr
    assert json.loads(cli("status", "--json").stdout)["agents"][0]["state"] == "connected"
    daemon.wait_for_stderr(HISTORY_WARNING)
    assert sum(line.startswith(HISTORY_WARNING) for line in daemon.err_lines) == 1  # said once

    # room again: the history is written again, every line a record
    filler.unlink()
    assert cli("prompt", "sa", "notice", "after room was made").returncode == 0
    until(lambda: "after room was made" in titles_in(state), what="the history to be written again")
    for line in raw_history(state):
        json.loads(line)
    assert sum(line.startswith(HISTORY_WARNING) for line in daemon.err_lines) == 1
    assert daemon.proc.poll() is None
    assert cli("quit").returncode == 0
    assert daemon.proc.wait(15) == 0


def test_full_disk_leaves_no_traceback_no_temporary_files_and_no_torn_record(
    daemons: list[DaemonProcess], tiny_state_dir: Path, tmp_path: Path
) -> None:
    state = tiny_state_dir
    daemon, filler = running_on_a_full_disk(daemons, state, tmp_path)
    for n in range(3):
        assert cli("prompt", "sa", "notice", f"while full {n} {'y' * 3000}").returncode == 0
    assert cli("prompt", "sa", "--session", "other", "say", "hi").returncode == 0  # a session id to save
    daemon.wait_for_stderr(HISTORY_WARNING)
    assert cli("quit").returncode == 0  # while the disk is still full
    code = daemon.proc.wait(15)
    stderr = daemon.stderr_text()
    problems = []
    if code != 0 or "Traceback" in stderr:
        problems.append(f"quit while full: exit code {code}, stderr ends {stderr.splitlines()[-1]!r}")
    if "--- Logging error ---" in stderr:
        problems.append(f"{stderr.count('--- Logging error ---')} logging tracebacks on stderr")
    leftovers = sorted(p.name for p in state.iterdir() if p.name.startswith("."))
    if leftovers:
        problems.append(f"temporary files left in the state directory: {leftovers}")

    # room again, and the daemon started again: every history line must be a record
    filler.unlink()
    start(daemons, "sa", verbose=True)
    assert cli("prompt", "sa", "notice", "next run").returncode == 0
    until(lambda: "next run" in (state / "history.jsonl").read_text(encoding="utf-8"), what="the next run's record")
    for line in raw_history(state):
        try:
            json.loads(line)
        except ValueError:
            problems.append(f"a history line that is not a record: {line[:60]!r}...{line[-60:]!r}")
    assert not problems, problems
