"""acp-tray in the app menu, for real: the launcher entry `acp-tray desktop install` (and the daemon's
first start) writes passes `desktop-file-validate`, GLib's own lookup of installed apps (what GNOME's
and GTK's menus use) finds it by its id with its icon, `desktop remove` leaves nothing behind, and
the autostart entry's icon exists."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from acp_tray.autostart.entries import DESKTOP_STAMP, desktop_entry
from acp_tray.desktop.entry import this_installation
from acp_tray.desktop.menu_entry import launcher_entry
from tests.desktop.exec_line import validate
from tests.support.daemons import DaemonProcess, cli, cli_env

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="XDG app menus are Linux/BSD")

LOOKUP = """
import json, sys
import gi
gi.require_version("Gtk", "3.0")
from gi.repository import Gio, Gtk
try:
    app = Gio.DesktopAppInfo.new("acp-tray.desktop")
except TypeError:  # no app by that id
    print(json.dumps(None)); sys.exit()
listed = [a.get_id() for a in Gio.AppInfo.get_all() if a.should_show()]
icon = Gtk.IconTheme.new().lookup_icon(app.get_icon().to_string(), 48, 0)
found = {"file": app.get_filename(), "commandline": app.get_commandline(), "in_menu": "acp-tray.desktop" in listed}
found["actions"] = {a: app.get_action_name(a) for a in app.list_actions()}
print(json.dumps({**found, "icon": icon.get_filename() if icon else None}))
"""


def data_home() -> Path:
    return Path(os.environ["XDG_DATA_HOME"])


def menu_lookup() -> dict[str, object] | None:
    """What GLib's app lookup finds for the id `acp-tray.desktop`, in a fresh process (its cache)."""
    pytest.importorskip("gi", reason="PyGObject (make test installs it)")
    found = subprocess.run([sys.executable, "-c", LOOKUP], env=cli_env(), capture_output=True, text=True, timeout=60)
    assert found.returncode == 0, found.stderr
    result: dict[str, object] | None = json.loads(found.stdout)
    return result


def tree(root: Path) -> list[str]:
    return sorted(str(p.relative_to(root)) for p in root.rglob("*"))


def test_install_puts_acp_tray_in_the_app_menu_and_remove_leaves_nothing() -> None:
    assert menu_lookup() is None
    before = tree(data_home())
    installed = cli("desktop", "install")
    assert installed.returncode == 0, installed.stderr
    entry = data_home() / "applications" / "acp-tray.desktop"
    assert f"launcher entry written: {entry}" in installed.stdout
    assert entry.read_text(encoding="utf-8") == launcher_entry(this_installation())
    validate(entry)
    found = menu_lookup()
    assert found is not None and found["file"] == str(entry) and found["in_menu"] is True
    assert found["commandline"] == " ".join(this_installation())  # this very installation
    assert found["icon"] == str(data_home() / "icons" / "hicolor" / "48x48" / "apps" / "acp-tray.png")
    # a running acp-tray's window is one click away in the menu too (the entry's action)
    assert found["actions"] == {"window": "Open the acp-tray window"}
    assert "already installed" in cli("desktop", "install").stdout  # idempotent
    removed = cli("desktop", "remove")
    assert removed.returncode == 0 and f"removed {entry}" in removed.stdout, removed.stderr
    assert tree(data_home()) == before and menu_lookup() is None


def test_an_entry_the_person_edited_is_neither_overwritten_nor_removed() -> None:
    cli("desktop", "install")
    entry = data_home() / "applications" / "acp-tray.desktop"
    edited = entry.read_text(encoding="utf-8").replace("Name=acp-tray", "Name=Agents")
    entry.write_text(edited, encoding="utf-8")
    assert "left alone" in cli("desktop", "install").stdout
    assert "left alone" in cli("desktop", "remove").stdout
    assert entry.read_text(encoding="utf-8") == edited
    assert not (data_home() / "icons" / "hicolor" / "48x48" / "apps" / "acp-tray.png").exists()  # the icons went


def test_the_first_start_installs_the_launcher_once() -> None:
    env = {k: v for k, v in cli_env(ACP_TRAY_DEMO_INTERVAL="0.05").items() if k not in ("DISPLAY", "WAYLAND_DISPLAY")}
    env.pop("DBUS_SESSION_BUS_ADDRESS", None)
    entry = data_home() / "applications" / "acp-tray.desktop"
    for start in ("first", "second"):
        daemon = DaemonProcess("run", env=env)
        try:
            daemon.wait_for_line("control: ")
            assert not any("launcher" in line for line in daemon.seen)  # quietly
            if start == "first":
                assert entry.read_text(encoding="utf-8") == launcher_entry(this_installation())
                validate(entry)
            else:
                assert not entry.exists()  # removed after the first start: it stays removed
        finally:
            assert cli("quit").returncode == 0
            daemon.proc.wait(15)
        if start == "first":
            assert cli("desktop", "remove").returncode == 0


def test_the_autostart_entry_names_an_icon_that_exists_and_is_not_hidden() -> None:
    enabled = cli("autostart", "enable")
    assert enabled.returncode == 0, enabled.stderr
    entry = Path(os.environ["XDG_CONFIG_HOME"]) / "autostart" / "acp-tray.desktop"
    assert entry.read_text(encoding="utf-8") == DESKTOP_STAMP.on(desktop_entry(this_installation()))
    validate(entry)
    assert "Icon=acp-tray\n" in entry.read_text() and "NoDisplay" not in entry.read_text()
    assert (data_home() / "icons" / "hicolor" / "48x48" / "apps" / "acp-tray.png").is_file()
