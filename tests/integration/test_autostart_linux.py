"""Start on login on Linux, for real: the entry `acp-tray autostart enable` writes passes
`desktop-file-validate`, and its Exec line, run as written, starts a daemon that answers."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from acp_tray.autostart.entries import DESKTOP_STAMP, desktop_entry
from acp_tray.autostart.files import run_tool
from acp_tray.autostart.xdg import XdgAutostart
from tests.desktop.exec_line import desktop_argv
from tests.support.daemons import cli, cli_env

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="XDG autostart is Linux/BSD")


def exec_value(entry: Path) -> str:
    line = next(x for x in entry.read_text().splitlines() if x.startswith("Exec="))
    return line.removeprefix("Exec=")


def configure_demo() -> None:
    config = Path(os.environ["XDG_CONFIG_HOME"]) / "acp-tray" / "config.toml"
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text('notifier = "console"\n[agents.demo]\ncommand = ["acp-tray", "demo-agent"]\n')


def run_as_written(entry: Path) -> subprocess.Popen[str]:
    argv = desktop_argv(exec_value(entry))
    assert Path(argv[0]).is_absolute()  # found without PATH, as at login
    env = cli_env(ACP_TRAY_DEMO_INTERVAL="0.05", PATH="/usr/bin:/bin")  # no venv on PATH at login
    return subprocess.Popen(argv, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)


def wait_for_status() -> str:
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        status = cli("status")
        if status.returncode == 0 and "1 connected" in status.stdout:
            return status.stdout
        time.sleep(0.2)
    raise AssertionError("the daemon started from the autostart entry never answered")


def test_enable_writes_a_valid_entry_whose_exec_starts_a_daemon_and_disable_removes_it() -> None:
    if shutil.which("desktop-file-validate") is None:
        pytest.fail("desktop-file-validate is missing (desktop-file-utils; make test installs it)")
    configure_demo()
    enabled = cli("autostart", "enable")
    assert enabled.returncode == 0, enabled.stderr
    entry = Path(os.environ["XDG_CONFIG_HOME"]) / "autostart" / "acp-tray.desktop"
    assert f"written: {entry}" in enabled.stdout
    validate = subprocess.run(["desktop-file-validate", str(entry)], capture_output=True, text=True)
    assert validate.returncode == 0 and validate.stdout == "", validate.stdout
    assert "starts this installation" in cli("autostart", "status").stdout
    daemon = run_as_written(entry)
    try:
        assert "demo" in wait_for_status()
    finally:
        cli("quit")
        daemon.wait(15)
    disabled = cli("autostart", "disable")
    assert disabled.returncode == 0 and f"removed {entry}" in disabled.stdout
    assert not entry.exists()
    assert "not installed" in cli("autostart", "status").stdout


def test_an_installation_under_a_path_with_spaces_starts_from_its_entry(tmp_path: Path) -> None:
    configure_demo()
    odd = tmp_path / "my tools" / "it's $here"
    odd.mkdir(parents=True)
    program = odd / "acp-tray"
    program.write_text(f"#!/bin/sh\nexec '{sys.executable}' -m acp_tray \"$@\"\n")
    program.chmod(0o755)
    auto = XdgAutostart([str(program), "run"], run_tool)
    auto.enable()
    assert auto.desktop_file.read_text() == DESKTOP_STAMP.on(desktop_entry([str(program), "run"]))
    validate = subprocess.run(["desktop-file-validate", str(auto.desktop_file)], capture_output=True, text=True)
    assert validate.returncode == 0 and validate.stdout == "", validate.stdout
    daemon = run_as_written(auto.desktop_file)
    try:
        wait_for_status()
    finally:
        cli("quit")
        daemon.wait(15)
    auto.disable()


def test_an_entry_the_person_edited_survives_enable_and_disable() -> None:
    """Item 12 of the security review: `autostart enable` overwrote an entry the person had edited
    (here: started later, with a delay), and `autostart disable` deleted it."""
    assert cli("autostart", "enable").returncode == 0
    entry = Path(os.environ["XDG_CONFIG_HOME"]) / "autostart" / "acp-tray.desktop"
    edited = entry.read_text().replace("Terminal=false\n", "Terminal=false\nX-GNOME-Autostart-Delay=30\n")
    entry.write_text(edited)
    again = cli("autostart", "enable")
    assert again.returncode != 0 and "edited since acp-tray wrote it" in again.stderr, again.stderr
    assert "left alone" in cli("autostart", "status").stdout
    disabled = cli("autostart", "disable")
    assert disabled.returncode == 0 and "left alone" in disabled.stdout and f"rm {entry}" in disabled.stdout
    assert entry.read_text() == edited


def test_enable_writes_through_no_symlink_planted_at_a_temporary_name(tmp_path: Path) -> None:
    """Item 12 of the security review: `autostart enable` wrote through a symlink planted at its
    fixed temporary name (`.acp-tray.desktop.tmp`), into the file it pointed at."""
    config = Path(os.environ["XDG_CONFIG_HOME"])
    victim = tmp_path / "victim.txt"
    victim.write_text("the person's own file\n")
    for option, name in (((), "autostart/acp-tray.desktop"), (("--systemd",), "systemd/user/acp-tray.service")):
        entry = config / name
        entry.parent.mkdir(parents=True, exist_ok=True)
        planted = entry.with_name(f".{entry.name}.tmp")
        planted.symlink_to(victim)
        enabled = cli("autostart", "enable", *option)
        assert enabled.returncode == 0, enabled.stderr
        assert victim.read_text() == "the person's own file\n"
        assert not entry.is_symlink() and "acp-tray" in entry.read_text()
        assert planted.is_symlink() and planted.resolve() == victim  # not acp-tray's to remove either
