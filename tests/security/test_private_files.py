"""Item 2 and 14 of the security review: what acp-tray writes is private to the person, and a
history or log that cannot be opened costs the record, not the daemon."""

from __future__ import annotations

import os
import stat
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.daemons import DaemonProcess, cli, cli_env
from tests.support.repo import ROOT


@pytest.fixture
def lax_umask() -> Iterator[None]:
    """The usual desktop umask (022): files would be 0644 and directories 0755 without care."""
    old = os.umask(0o022)
    yield
    os.umask(old)


def _mode(path: Path) -> int:
    return stat.S_IMODE(path.lstat().st_mode)


def test_files_are_0600_and_directories_0700_under_a_lax_umask(
    isolated_dirs: Path, lax_umask: None, daemons: list[DaemonProcess]
) -> None:
    daemon = DaemonProcess("run", "--headless")
    daemons.append(daemon)
    daemon.wait_for_line("Workspace indexed")  # a notice: the history has a record
    assert cli("dnd", "on").returncode == 0  # a rewrite of the preferences file
    assert daemon.stop() == 0
    config_dir = isolated_dirs / "xdg_config_home" / "acp-tray"
    state_dir = isolated_dirs / "xdg_state_home" / "acp-tray"
    files = [config_dir / "config.toml", state_dir / "history.jsonl", state_dir / "log" / "acp-tray.log"]
    for path in files:
        assert _mode(path) == 0o600, f"{path} is {_mode(path):o}"
    for path in (config_dir, state_dir, state_dir / "log"):
        assert _mode(path) == 0o700, f"{path} is {_mode(path):o}"


def test_an_existing_preferences_file_keeps_its_mode_on_rewrite(isolated_dirs: Path, lax_umask: None) -> None:
    config = isolated_dirs / "xdg_config_home" / "acp-tray" / "config.toml"
    config.parent.mkdir()
    config.write_text("[dnd]\nenabled = false\n")
    config.chmod(0o640)
    assert cli("dnd", "on").returncode == 0
    assert _mode(config) == 0o640 and "enabled = true" in config.read_text()


@pytest.mark.parametrize("blocker", ["directory", "fifo", "symlink"])
def test_run_goes_on_when_the_history_cannot_be_opened(
    isolated_dirs: Path, daemons: list[DaemonProcess], blocker: str
) -> None:
    history = isolated_dirs / "xdg_state_home" / "acp-tray" / "history.jsonl"
    history.parent.mkdir(mode=0o700)
    elsewhere = isolated_dirs / "elsewhere.jsonl"
    if blocker == "directory":
        history.mkdir()
    elif blocker == "fifo":
        os.mkfifo(history)  # opening it would wait for ever for a reader
    else:
        history.symlink_to(elsewhere)  # O_NOFOLLOW: a planted link is not written through
    daemon = DaemonProcess("run", "--headless")
    daemons.append(daemon)
    daemon.wait_for_line("Workspace indexed")  # notices are presented anyway
    assert daemon.stop() == 0
    err = daemon.stderr_text()
    assert "Traceback" not in err
    said = [line for line in err.splitlines() if "cannot open the history file" in line]
    assert len(said) == 1 and "not recorded" in said[0], err
    assert not elsewhere.exists()


@pytest.mark.parametrize("blocker", ["directory", "fifo"])
def test_history_that_is_not_a_file_is_said_in_one_line(isolated_dirs: Path, blocker: str) -> None:
    """`acp-tray history` with a directory or a named pipe where the history file belongs: one
    line saying what is there, exit 1 (it was a traceback, and a pipe made it wait for ever)."""
    history = isolated_dirs / "xdg_state_home" / "acp-tray" / "history.jsonl"
    history.parent.mkdir(mode=0o700)
    history.mkdir() if blocker == "directory" else os.mkfifo(history)
    for args in (["history"], ["history", "--json"]):
        done = cli(*args, timeout=30)
        assert done.returncode == 1, done
        what = "a directory" if blocker == "directory" else "a named pipe"
        assert done.stderr.strip() == f"acp-tray: cannot read the history: {history}: it is {what}, not a file"
        assert done.stdout == ""


def test_log_file_symlink_is_not_followed(isolated_dirs: Path, daemons: list[DaemonProcess]) -> None:
    log_file = isolated_dirs / "xdg_state_home" / "acp-tray" / "log" / "acp-tray.log"
    log_file.parent.mkdir(parents=True, mode=0o700)
    elsewhere = isolated_dirs / "elsewhere.log"
    log_file.symlink_to(elsewhere)
    daemon = DaemonProcess("run", "--headless")
    daemons.append(daemon)
    daemon.wait_for_line("Workspace indexed")
    assert daemon.stop() == 0
    err = daemon.stderr_text()
    assert "Traceback" not in err and "cannot open the log file" in err
    assert not elsewhere.exists()


def test_output_closed_early_and_an_oversized_prompt_are_one_line_messages(daemons: list[DaemonProcess]) -> None:
    daemon = DaemonProcess("run", "--headless")
    daemons.append(daemon)
    daemon.wait_for_line("connected")
    status = subprocess.Popen(
        [sys.executable, "-m", "acp_tray", "status"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=cli_env(),
        cwd=ROOT,
        text=True,
    )
    assert status.stdout is not None
    status.stdout.close()  # `| head -0`: the reader is gone before anything is written
    _, err = status.communicate(timeout=60)
    assert status.returncode == 1
    assert err.strip() == "acp-tray: the output was closed before everything was written (broken pipe)"
    words = ["x" * 100_000] * 12  # 1.2 MB, in arguments of 100 kB (the kernel's limit per argument)
    prompt = cli("prompt", "demo", *words)
    assert prompt.returncode == 1 and "Traceback" not in prompt.stderr
    assert prompt.stderr.strip() == "acp-tray: the request is 1.1 MiB; the daemon takes at most 1 MiB"
    assert daemon.stop() == 0
