"""Start-on-login files for Linux, macOS and Windows: content, paths, quoting, and what enable,
disable and status do, on any OS (the OS tools and the registry are stand-ins here)."""

from __future__ import annotations

import plistlib
import re
import subprocess
import sys
from pathlib import Path

import pytest

from acp_tray.autostart.entries import (
    DESKTOP_MARK,
    DESKTOP_STAMP,
    LAUNCH_AGENT_LABEL,
    LEGACY_DESKTOP_MARK,
    SYSTEMD_STAMP,
    desktop_entry,
    launch_agent,
    run_value,
    systemd_unit,
)
from acp_tray.autostart.files import Current, run_tool
from acp_tray.autostart.launchd import LaunchAgentAutostart
from acp_tray.autostart.select import autostart_for
from acp_tray.autostart.xdg import XdgAutostart
from acp_tray.desktop.entry import desktop_exec, this_installation
from acp_tray.desktop.entry_file import EntryError
from tests.desktop.exec_line import desktop_argv, unit_argv, without_env
from tests.support.platforms import posix_only

AWKWARD = [
    ["/usr/bin/acp-tray", "run"],
    ["/home/ann/my tools/venv/bin/acp-tray", "run"],
    ['/opt/we"ird/acp-tray', "run"],
    ["/opt/$HOME/100%/acp-tray", "run"],
    ["C:\\Users\\Ann Lee\\acp tray\\acp-tray-gui.exe", "run"],
    ["/srv/back`tick`/a;b&c|d/acp-tray", "run"],
]


@pytest.mark.parametrize("argv", AWKWARD)
def test_desktop_exec_round_trips_any_path(argv: list[str]) -> None:
    assert without_env(desktop_argv(desktop_exec(argv))) == argv


def test_desktop_exec_leaves_plain_paths_plain() -> None:
    assert desktop_exec(["/usr/bin/acp-tray", "run"]) == "/usr/bin/acp-tray run"
    assert desktop_exec(["/a b/acp-tray", "run"]) == '"/a b/acp-tray" run'


@pytest.mark.parametrize("argv", AWKWARD)
def test_systemd_exec_start_round_trips_any_path(argv: list[str]) -> None:
    line = next(x for x in systemd_unit(argv).splitlines() if x.startswith("ExecStart="))
    assert without_env(unit_argv(line.removeprefix("ExecStart="))) == argv


def test_systemd_unit_starts_with_the_graphical_session_and_restarts_only_on_failure() -> None:
    unit = systemd_unit(["/x/acp-tray", "run"])
    assert "WantedBy=graphical-session.target" in unit and "PartOf=graphical-session.target" in unit
    assert "Restart=on-failure" in unit and "Restart=always" not in unit


@pytest.mark.parametrize("argv", AWKWARD)
def test_launch_agent_runs_at_load_without_keepalive(argv: list[str], tmp_path: Path) -> None:
    plist = plistlib.loads(launch_agent(argv, tmp_path / "log"))
    assert plist["Label"] == LAUNCH_AGENT_LABEL
    assert plist["ProgramArguments"] == argv  # an array: no quoting to get wrong
    assert plist["RunAtLoad"] is True and plist["KeepAlive"] is False


def test_windows_run_value_quotes_paths_with_spaces() -> None:
    value = run_value(["C:\\Users\\Ann Lee\\Scripts\\acp-tray-gui.exe", "run"])
    assert value == '"C:\\Users\\Ann Lee\\Scripts\\acp-tray-gui.exe" run'
    assert run_value(["C:\\Python\\Scripts\\acp-tray-gui.exe", "run"]) == "C:\\Python\\Scripts\\acp-tray-gui.exe run"


def test_this_installation_is_an_absolute_command_of_this_python() -> None:
    argv = this_installation()
    assert Path(argv[0]).is_absolute() and Path(argv[0]).exists() and argv[-1] == "run"


def test_desktop_entry_is_marked_and_shown_in_start_up_lists() -> None:
    """No `NoDisplay=true`: the autostart folder is in no app menu, and gnome-session-properties
    (and MATE's) hid such an entry from its start-up list unless "Show hidden" was ticked."""
    entry = DESKTOP_STAMP.on(desktop_entry(["/x/acp-tray", "run"]))
    assert entry.startswith("[Desktop Entry]\n") and f"\n{DESKTOP_MARK}=" in entry
    assert "NoDisplay" not in entry and "Terminal=false" in entry and "Icon=acp-tray\n" in entry


# enable / disable / status ------------------------------------------------------------------


class Calls:
    def __init__(self, code: int = 0) -> None:
        self.commands: list[list[str]] = []
        self.code = code

    def __call__(self, command: list[str]) -> subprocess.CompletedProcess[str]:
        self.commands.append(command)
        if command[0] == "systemd-analyze":  # the real check of a unit written, where it is installed
            return run_tool(command)
        return subprocess.CompletedProcess(command, self.code, "", "no user manager" if self.code else "")


class Registry:
    def __init__(self) -> None:
        self.values: dict[str, str] = {}

    def get(self, name: str) -> str | None:
        return self.values.get(name)

    def set(self, name: str, value: str) -> None:
        self.values[name] = value

    def delete(self, name: str) -> None:
        del self.values[name]


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "home" / ".config"))
    return tmp_path / "home"


def program_at(directory: Path) -> str:
    """An executable `acp-tray` in `directory` (GLib accepts an entry only when its program exists)."""
    directory.mkdir(parents=True, exist_ok=True)
    program = directory / "acp-tray"
    program.write_text(f"#!{sys.executable}\n")
    program.chmod(0o755)
    return str(program)


def test_linux_enable_is_idempotent_and_disable_removes_only_its_own(home: Path) -> None:
    command = [program_at(home / "a b"), "run"]
    auto = XdgAutostart(command, Calls())
    first = auto.enable()
    assert auto.desktop_file == home / ".config" / "autostart" / "acp-tray.desktop"
    assert "written" in first[0] and auto.desktop_file.read_text() == DESKTOP_STAMP.on(desktop_entry(command))
    assert "already enabled" in auto.enable()[0]
    assert auto.status()[0].endswith("installed — starts this installation")
    other = XdgAutostart([program_at(home / "elsewhere"), "run"], Calls())
    assert "starts another installation" in other.status()[0]
    assert (auto.current(), other.current()) == (Current(on=True, this=True), Current(on=True, this=False))
    assert auto.disable() == [f"removed {auto.desktop_file}"] and not auto.desktop_file.exists()
    assert auto.disable() == ["start on login: not enabled"]
    assert auto.current() == Current(on=False, this=False)


def test_a_file_acp_tray_did_not_write_is_never_overwritten_or_removed(home: Path) -> None:
    auto = XdgAutostart(["/x/acp-tray", "run"], Calls())
    auto.desktop_file.parent.mkdir(parents=True)
    auto.desktop_file.write_text("[Desktop Entry]\nExec=my-own-wrapper\n")
    with pytest.raises(EntryError, match="not written by acp-tray"):
        auto.enable()
    assert "not written by acp-tray" in auto.status()[0]
    assert "left alone" in auto.disable()[0]
    assert auto.desktop_file.read_text() == "[Desktop Entry]\nExec=my-own-wrapper\n"
    assert not auto.current().on  # someone else's entry is not acp-tray's switch


@posix_only("symlinks (systemd's wants link)")
def test_systemd_instead_of_xdg_and_back(home: Path) -> None:
    calls = Calls(code=1)  # no user manager here: the unit is still installed and enabled
    command = [program_at(home / "x"), "run"]
    auto = XdgAutostart(command, calls)
    auto.enable()
    said = auto.enable(systemd=True)
    assert not auto.desktop_file.exists()  # instead of, not as well as
    assert auto.unit_file.read_text() == SYSTEMD_STAMP.on(systemd_unit(command))
    assert auto.unit_link.is_symlink() and auto.unit_link.resolve() == auto.unit_file.resolve()
    assert any("next login" in line for line in said)
    assert ["systemctl", "--user", "daemon-reload"] in calls.commands
    assert "starts this installation" in auto.status()[1]
    assert auto.current() == Current(on=True, this=True)
    auto.enable()  # back to XDG autostart: the unit goes
    assert not auto.unit_file.exists() and not auto.unit_link.is_symlink() and auto.desktop_file.exists()


@posix_only("os.getuid (launchctl's gui/UID domain)")
def test_macos_launch_agent_is_written_bootstrapped_and_booted_out(home: Path) -> None:
    calls = Calls()
    auto = LaunchAgentAutostart(["/Users/ann/Library/Python/bin/acp-tray", "run"], calls)
    auto.enable()
    assert auto.plist_file == home / "Library" / "LaunchAgents" / f"{LAUNCH_AGENT_LABEL}.plist"
    assert plistlib.loads(auto.plist_file.read_bytes())["ProgramArguments"][0].endswith("acp-tray")
    assert any(c[:2] == ["launchctl", "bootstrap"] and c[2].startswith("gui/") for c in calls.commands)
    calls.commands.clear()
    assert "already enabled" in auto.enable()[0] and calls.commands == []  # idempotent: not reloaded
    assert "starts this installation" in auto.status()[0] and auto.current() == Current(on=True, this=True)
    auto.disable()
    assert not auto.plist_file.exists() and not auto.current().on
    assert any(c[:2] == ["launchctl", "bootout"] and c[2].endswith(LAUNCH_AGENT_LABEL) for c in calls.commands)


def test_windows_run_value_enable_status_disable() -> None:
    registry = Registry()
    argv = ["C:\\Users\\Ann Lee\\Scripts\\acp-tray-gui.exe", "run"]
    auto = autostart_for("win32", argv, registry=registry)
    auto.enable()
    assert registry.values == {"acp-tray": run_value(argv)}
    assert "already enabled" in auto.enable()[0]
    assert "starts this installation" in auto.status()[0]
    assert (
        "starts another installation" in autostart_for("win32", ["C:\\other.exe", "run"], registry=registry).status()[0]
    )
    assert auto.current() == Current(on=True, this=True)
    auto.disable()
    assert registry.values == {} and auto.status() == ["start on login: not enabled"]
    assert auto.current() == Current(on=False, this=False)


def test_the_templates_in_packaging_are_what_enable_writes() -> None:
    """packaging/ holds the systemd unit and the LaunchAgent as templates for packagers: kept equal to
    what `acp-tray autostart enable` writes, with @ACP_TRAY@ (and @LOG_FILE@) to fill in."""
    packaging = Path(__file__).resolve().parents[2] / "packaging"
    assert (packaging / "acp-tray.service").read_text() == systemd_unit(["@ACP_TRAY@", "run"])
    plist = (packaging / f"{LAUNCH_AGENT_LABEL}.plist").read_bytes()
    assert plist == launch_agent(["@ACP_TRAY@", "run"], Path("@LOG_FILE@"))


def test_each_os_gets_its_own_kind() -> None:
    assert isinstance(autostart_for("linux", ["x"]), XdgAutostart)
    assert isinstance(autostart_for("freebsd14", ["x"]), XdgAutostart)
    assert isinstance(autostart_for("darwin", ["x"]), LaunchAgentAutostart)
    assert autostart_for("win32", ["x"], registry=Registry()).status() == ["start on login: not enabled"]


# paths no entry can hold; entries the person edited (items 11 and 12 of the security review) -----


@pytest.mark.parametrize(
    ("odd", "said"),
    [
        ("new\nline", "a line break"),
        ("car\rriage", "a carriage return"),
        ("a\ttab", "a tab"),
        ("nul\0", "a NUL character"),
        ("esc\x1b[31m", "a control character (U+001B)"),
        ("del\x7f", "a control character (U+007F)"),
        ("latin-1 caf\udce9", "bytes that are not UTF-8"),
    ],
)
def test_a_path_no_entry_can_hold_is_refused_in_plain_words_and_nothing_is_written(
    home: Path, odd: str, said: str
) -> None:
    """Item 11 of the security review: a line break in the path wrote a second `Exec=` line."""
    command = [f"/opt/{odd}/acp-tray", "run"]
    for systemd in (False, True):
        with pytest.raises(EntryError, match=f"installed at a path with {re.escape(said)}.*cannot write") as refused:
            XdgAutostart(command, Calls()).enable(systemd=systemd)
        assert "\n" not in str(refused.value) and "\0" not in str(refused.value)  # shown escaped, on one line
    assert not (home / ".config" / "autostart").exists() and not (home / ".config" / "systemd").exists()
    with pytest.raises(EntryError, match=re.escape(said)):
        launch_agent(command, home / "log")


@posix_only("an XDG entry names a POSIX program path")
def test_an_edited_entry_is_neither_overwritten_nor_removed_and_an_older_unedited_one_is_ours(home: Path) -> None:
    """Item 12 of the security review: `enable` overwrote an autostart entry the person had edited
    (a delay added), and `disable` deleted it. An entry from before the stamp, unedited, is still acp-tray's."""
    command = [program_at(home / "bin"), "run"]
    calls = Calls()
    for systemd, path in (
        (False, XdgAutostart(command, calls).desktop_file),
        (True, XdgAutostart(command, calls).unit_file),
    ):
        auto = XdgAutostart(command, calls)
        auto.enable(systemd=systemd)
        edited = path.read_text() + "X-GNOME-Autostart-Delay=30\n"
        path.write_text(edited)
        with pytest.raises(EntryError, match="edited since acp-tray wrote it"):
            auto.enable(systemd=systemd)
        assert any("left alone" in line and "remove it yourself" in line for line in auto.disable())
        assert path.read_text() == edited and not auto.current().on
        path.unlink()
    older = desktop_entry(command) + LEGACY_DESKTOP_MARK  # as acp-tray wrote it before the stamp
    auto = XdgAutostart(command, calls)
    auto.desktop_file.write_text(older)
    assert auto.current() == Current(on=True, this=True)
    assert auto.disable() == [f"removed {auto.desktop_file}"]


@posix_only("os.getuid (launchctl's gui/UID domain)")
def test_an_edited_launch_agent_is_left_alone(home: Path) -> None:
    auto = LaunchAgentAutostart(["/Users/ann/bin/acp-tray", "run"], Calls())
    auto.enable()
    edited = auto.plist_file.read_text().replace("<false/>", "<true/>")  # KeepAlive turned on
    auto.plist_file.write_text(edited)
    with pytest.raises(EntryError, match="edited since acp-tray wrote it"):
        auto.enable()
    assert "left alone" in auto.disable()[0] and auto.plist_file.read_text() == edited
