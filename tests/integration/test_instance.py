"""One daemon per user: a second `acp-tray run` finds the first; a crashed one's lock is taken over;
the daemon logs to its rotating file."""

from __future__ import annotations

from acp_tray.control.endpoint import LOCK_NAME, runtime_dir
from acp_tray.files import paths
from tests.support.agents import session_agent_table
from tests.support.config import write_config
from tests.support.daemons import DaemonProcess, cli, cli_env, start


def configure() -> None:
    write_config(session_agent_table("sa"))


def test_a_second_run_finds_the_first_and_exits_with_one_line(daemons: list[DaemonProcess]) -> None:
    configure()
    first = start(daemons, "sa")
    lock = runtime_dir() / LOCK_NAME
    assert lock.read_text().strip() == str(first.proc.pid)  # the owner, for the message
    second = cli("run", "--headless", timeout=30)
    assert second.returncode == 0  # the daemon is running: nothing failed (no restart loop under systemd)
    lines = second.stdout.strip().splitlines()
    assert len(lines) == 1 and f"already running (pid {first.proc.pid})" in lines[0]
    assert "agents" not in second.stdout  # it never started its own agents
    assert cli("status").returncode == 0 and first.proc.poll() is None
    assert cli("quit").returncode == 0
    assert first.proc.wait(15) == 0
    assert not lock.exists()  # removed on the way out


def test_a_lock_left_by_a_killed_daemon_is_taken_over(daemons: list[DaemonProcess]) -> None:
    configure()
    first = start(daemons, "sa")
    first.proc.kill()  # no clean-up: the lock file and the socket stay behind
    first.proc.wait()
    lock = runtime_dir() / LOCK_NAME
    assert lock.exists() and lock.read_text().strip() == str(first.proc.pid)
    second = start(daemons, "sa")
    assert lock.read_text().strip() == str(second.proc.pid)
    log = paths.log_file().read_text()
    assert f"took over the lock left by a daemon that did not stop cleanly (pid {first.proc.pid})" in log
    assert cli("status").returncode == 0


def test_a_lock_file_with_garbage_and_no_owner_does_not_stop_the_daemon(daemons: list[DaemonProcess]) -> None:
    configure()
    directory = runtime_dir()
    directory.mkdir(mode=0o700, parents=True)
    (directory / LOCK_NAME).write_text("not a pid\n")
    daemon = start(daemons, "sa")
    assert (directory / LOCK_NAME).read_text().strip() == str(daemon.proc.pid)


def test_the_daemon_logs_to_a_rotating_file_more_with_verbose(daemons: list[DaemonProcess]) -> None:
    configure()
    daemon = DaemonProcess("run", "--headless", "-vv", env=cli_env())
    daemons.append(daemon)
    banner = daemon.wait_for_line("history: ")
    assert f"log: {paths.log_file()}" in banner
    daemon.wait_for_line("  sa  connected")
    assert cli("quit").returncode == 0
    daemon.proc.wait(15)
    text = paths.log_file().read_text()
    assert " DEBUG acp_tray.control.server: control request quit" in text  # -vv reaches the file


def test_quit_returns_once_the_daemon_has_stopped_so_run_starts_a_new_one(daemons: list[DaemonProcess]) -> None:
    configure()
    first = start(daemons, "sa")
    quit_ = cli("quit")
    assert not (runtime_dir() / LOCK_NAME).exists()  # let go of before `quit` returned
    assert quit_.returncode == 0 and quit_.stdout.splitlines() == ["acp-tray is stopping", "acp-tray stopped"]
    second = DaemonProcess("run", "--headless", env=cli_env())  # at once: no "already running"
    daemons.append(second)
    second.wait_for_line("  sa  connected")
    assert first.proc.wait(15) == 0
    assert not any("already running" in line for line in second.seen)


def test_quit_no_wait_returns_when_told(daemons: list[DaemonProcess]) -> None:
    configure()
    first = start(daemons, "sa")
    quit_ = cli("quit", "--no-wait")
    assert quit_.returncode == 0 and quit_.stdout.strip() == "acp-tray is stopping"
    assert first.proc.wait(15) == 0
