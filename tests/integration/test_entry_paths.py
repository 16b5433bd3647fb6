"""Launcher and start-on-login entries of installations at unusual paths, read by the real readers
(item 11 of the security review): GLib launches the XDG entries as GNOME, GTK and most session
managers do, `systemd-analyze verify` checks the unit, and a path that no entry can hold is refused
in plain words, with nothing written. One test goes through a Python installation at such a path,
running its own `acp-tray autostart enable` and `desktop install`."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

from acp_tray.autostart.files import run_tool
from acp_tray.autostart.xdg import XdgAutostart
from acp_tray.desktop.entry_file import EntryError
from acp_tray.desktop.menu_entry import Launcher
from tests.desktop.exec_line import unit_argv, validate, without_env
from tests.support.daemons import cli, cli_env

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="XDG entries and systemd units")

ODD = [
    "100% sure",
    "100%f and %u",
    "it's",
    'say "hi"',
    "$HOME and $$",
    "back\\slash",
    "with  spaces",
    "all of 100% $x 'a' \"b\" \\c `d` ;e &f",
]

# GLib's own launch of a desktop file (and of its action), in a process of its own
LAUNCH = """
import sys
import gi
gi.require_version("Gio", "2.0")
from gi.repository import Gio
app = Gio.DesktopAppInfo.new_from_filename(sys.argv[1])
if len(sys.argv) > 2:
    app.launch_action(sys.argv[2], None)
elif not app.launch([], None):
    sys.exit("GLib did not launch it")
"""


def recorder(directory: Path) -> str:
    """An `acp-tray` in `directory` that writes the argv it was started with to $ENTRY_RECORD."""
    directory.mkdir(parents=True)
    program = directory / "acp-tray"
    program.write_text(
        f"#!{sys.executable}\nimport json, os, sys\nopen(os.environ['ENTRY_RECORD'], 'w').write(json.dumps(sys.argv))\n"
    )
    program.chmod(0o755)
    return str(program)


def glib_launch(entry: Path, *action: str, env: dict[str, str] | None = None) -> None:
    pytest.importorskip("gi", reason="PyGObject (make test installs it)")
    with tempfile.TemporaryFile("w+") as errors:  # not a pipe: what GLib starts holds it open
        launched = subprocess.run(
            [sys.executable, "-c", LAUNCH, str(entry), *action],
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=errors,
            timeout=60,
        )
        errors.seek(0)
        assert launched.returncode == 0, f"GLib would not launch {entry}:\n{errors.read()}"


def launched_argv(entry: Path, record: Path, *action: str) -> list[str]:
    """The argv GLib starts for `entry` (or its `action`), as the program started recorded it."""
    record.unlink(missing_ok=True)
    glib_launch(entry, *action, env={**os.environ, "ENTRY_RECORD": str(record)})
    deadline = time.monotonic() + 30
    while not record.exists() or not record.read_text():
        if time.monotonic() > deadline:
            raise AssertionError(f"the program {entry} names never started")
        time.sleep(0.05)
    argv: list[str] = json.loads(record.read_text())
    return argv


def exec_start(unit: Path) -> str:
    return next(x for x in unit.read_text().splitlines() if x.startswith("ExecStart=")).removeprefix("ExecStart=")


def verify(unit: Path) -> None:
    if shutil.which("systemd-analyze") is None:
        pytest.fail("systemd-analyze is missing (the systemd package)")
    checked = subprocess.run(["systemd-analyze", "verify", "--man=no", str(unit)], capture_output=True, text=True)
    assert checked.returncode == 0, checked.stderr


@pytest.mark.parametrize("odd", ODD)
def test_glib_starts_exactly_this_program_from_the_autostart_entry_and_the_launcher(odd: str, tmp_path: Path) -> None:
    """A `%` in the path made GLib refuse both entries (it looks the program up before expanding `%%`)."""
    program, record = recorder(tmp_path / odd), tmp_path / "record.json"
    auto = XdgAutostart([program, "run"], run_tool)
    assert "XDG autostart entry written" in auto.enable()[0]
    validate(auto.desktop_file)
    assert launched_argv(auto.desktop_file, record) == [program, "run"]
    launcher = Launcher([program, "run"], tmp_path / "data")
    assert "launcher entry written" in launcher.install()[0]
    validate(launcher.entry_file)
    assert launched_argv(launcher.entry_file, record) == [program, "run"]
    assert launched_argv(launcher.entry_file, record, "window") == [program, "ui"]


@pytest.mark.parametrize("odd", ODD)
def test_the_systemd_unit_names_exactly_this_program(odd: str, tmp_path: Path) -> None:
    """systemd refused a program path with quotes or a backslash ("special characters"), and took
    the `$$` written for a `$` in it literally (no such program)."""
    program = recorder(tmp_path / odd)
    auto = XdgAutostart([program, "run"], run_tool)
    said = auto.enable(systemd=True)
    assert said[0].startswith("systemd user unit written") and any(x.startswith("enabled: ") for x in said), said
    verify(auto.unit_file)
    assert without_env(unit_argv(exec_start(auto.unit_file))) == [program, "run"]


@pytest.mark.parametrize(("odd", "said"), [("new\nline", "a line break"), ("a\ttab", "a tab")])
def test_a_path_with_a_control_character_is_refused_and_nothing_is_written(odd: str, said: str, tmp_path: Path) -> None:
    """A line break in the path wrote a second `Exec=` line, which GLib obeyed."""
    program = recorder(tmp_path / odd)
    auto = XdgAutostart([program, "run"], run_tool)
    for systemd in (False, True):
        with pytest.raises(EntryError, match=f"installed at a path with {said} .*: cannot write"):
            auto.enable(systemd=systemd)
    with pytest.raises(EntryError, match=f"installed at a path with {said} .*: cannot write a launcher entry"):
        Launcher([program, "run"], tmp_path / "data").install()
    assert not auto.desktop_file.exists() and not auto.unit_file.exists() and not (tmp_path / "data").exists()


def python_at(directory: Path) -> Path:
    """This Python (and this venv's packages) installed under `directory`: its `bin/python`."""
    (directory / "bin").mkdir(parents=True)
    python = directory / "bin" / "python"
    python.symlink_to(Path(sys.executable).resolve())
    if sys.prefix != sys.base_prefix:  # a venv: the same one, seen from here
        shutil.copy(Path(sys.prefix) / "pyvenv.cfg", directory / "pyvenv.cfg")
        (directory / "lib").symlink_to(Path(sys.prefix) / "lib")
    return python


def its_cli(python: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(python), "-m", "acp_tray", *args], capture_output=True, text=True, env=cli_env(), timeout=60
    )


def wait_for(answer: str) -> None:
    deadline = time.monotonic() + 30
    while True:
        status = cli("status")
        if answer in status.stdout + status.stderr:
            return
        if time.monotonic() > deadline:
            raise AssertionError(f"acp-tray status never said {answer!r}: {status.stdout}{status.stderr}")
        time.sleep(0.2)


def test_an_installation_at_an_odd_path_starts_on_login_from_its_own_enable(tmp_path: Path) -> None:
    config = Path(os.environ["XDG_CONFIG_HOME"]) / "acp-tray" / "config.toml"
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text('notifier = "console"\n[agents.demo]\ncommand = ["acp-tray", "demo-agent"]\n')
    python = python_at(tmp_path / 'it\'s 100% $HOME "q" back\\slash')
    enabled = its_cli(python, "autostart", "enable")
    assert enabled.returncode == 0 and "XDG autostart entry written" in enabled.stdout, enabled.stderr
    entry = Path(os.environ["XDG_CONFIG_HOME"]) / "autostart" / "acp-tray.desktop"
    glib_launch(entry, env=cli_env(ACP_TRAY_DEMO_INTERVAL="0.05"))  # the login session starts it
    try:
        wait_for("1 connected")
    finally:
        cli("quit")
    wait_for("not running")
    systemd = its_cli(python, "autostart", "enable", "--systemd")
    assert systemd.returncode == 0 and "systemd user unit written" in systemd.stdout, systemd.stderr
    unit = Path(os.environ["XDG_CONFIG_HOME"]) / "systemd" / "user" / "acp-tray.service"
    verify(unit)
    assert without_env(unit_argv(exec_start(unit))) == [str(python), "-m", "acp_tray", "run"]
    assert "removed" in its_cli(python, "autostart", "disable").stdout and not unit.exists()


def test_an_installation_at_a_path_with_a_line_break_is_told_so_in_plain_words(tmp_path: Path) -> None:
    python = python_at(tmp_path / "new\nline")
    for args, what in (
        (("autostart", "enable"), "an XDG autostart entry"),
        (("desktop", "install"), "a launcher entry"),
    ):
        refused = its_cli(python, *args)
        assert refused.returncode != 0 and "Traceback" not in refused.stderr, refused.stderr
        assert f"installed at a path with a line break ({tmp_path}/new\\nline/bin/python)" in refused.stderr
        assert f"cannot write {what}" in refused.stderr
    assert not (Path(os.environ["XDG_CONFIG_HOME"]) / "autostart").exists()
    assert not (Path(os.environ["XDG_DATA_HOME"]) / "applications").exists()
