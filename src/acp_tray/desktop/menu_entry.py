"""acp-tray in the desktop's app menu (Linux/BSD): a launcher entry for this installation and the
hicolor icons it and the autostart entry name, under $XDG_DATA_HOME; installed once at the daemon's
first start and by `acp-tray desktop install`, taken away by `acp-tray desktop remove`."""

from __future__ import annotations

import logging
import shlex
import sys
from collections.abc import Callable
from functools import partial
from pathlib import Path

import platformdirs

from acp_tray.assets import APP_ICON_SIZES, icon_path
from acp_tray.desktop.entry import APP, DESCRIPTION, desktop_command, desktop_exec, this_installation
from acp_tray.desktop.entry_file import EntryError, EntryFile, left_alone
from acp_tray.desktop.readback import desktop_problem
from acp_tray.files import paths
from acp_tray.files.atomic import write_atomically
from acp_tray.files.stamp import Stamp

log = logging.getLogger(__name__)

# the last line of the entry acp-tray writes: a digest of the lines above it, so that an entry the
# person has edited since (or one of their own at the same place) is told apart and left alone
MARK = "X-ACP-Tray-Launcher"
STAMP = Stamp(f"{MARK}=")
WHAT = "a launcher entry"


def has_launcher(system: str = sys.platform) -> bool:
    """Whether `system` (as in `sys.platform`) has XDG app menus: Linux and the BSDs."""
    return system not in ("win32", "darwin")


def _window(argv: list[str]) -> list[str]:
    """The same installation's `acp-tray ui`, for `argv` its `acp-tray run`."""
    return [*argv[:-1], "ui"] if argv[-1:] == ["run"] else [*argv, "ui"]


def launcher_entry(argv: list[str]) -> str:
    """`$XDG_DATA_HOME/applications/acp-tray.desktop` (valid for desktop-file-validate): `argv`
    (this installation's `acp-tray run`) starts it; its action "Open the acp-tray window" runs
    `acp-tray ui` (app menus offer it on the entry's context menu, docks in their jump list)."""
    return STAMP.on(_body(argv))


def _body(argv: list[str]) -> str:
    return (
        "[Desktop Entry]\n"
        "Type=Application\n"
        f"Name={APP}\n"
        "GenericName=Agent notifications\n"
        f"Comment={DESCRIPTION}\n"
        f"Exec={desktop_exec(argv, WHAT)}\n"
        f"Icon={APP}\n"
        "Terminal=false\n"
        "StartupNotify=false\n"
        "Categories=Development;\n"
        "Keywords=ACP;agent;notifications;tray;\n"
        "X-GNOME-UsesNotifications=true\n"
        "Actions=window;\n"
        "\n"
        "[Desktop Action window]\n"
        "Name=Open the acp-tray window\n"
        f"Exec={desktop_exec(_window(argv), WHAT)}\n"
    )


class Launcher:
    """The launcher entry starting `command` and the icons, under `data_home` (default: $XDG_DATA_HOME)."""

    def __init__(self, command: list[str], data_home: Path | None = None) -> None:
        self.command = command
        self.data_home = data_home if data_home is not None else platformdirs.user_data_path()

    @property
    def entry_file(self) -> Path:
        return self.data_home / "applications" / f"{APP}.desktop"

    @property
    def icons_dir(self) -> Path:
        return self.data_home / "icons" / "hicolor"

    def icon_files(self) -> dict[Path, Path]:
        """Where each icon goes, and the packaged PNG it is a copy of."""
        return {self.icons_dir / f"{size}x{size}" / "apps" / f"{APP}.png": icon_path(size) for size in APP_ICON_SIZES}

    def install(self) -> list[str]:
        """Write the entry and the icons where nothing is, or acp-tray's own unedited copy is; say what."""
        return self._install_entry() + self.install_icons()

    def install_icons(self) -> list[str]:
        written, kept = 0, []
        for target, source in self.icon_files().items():
            data = source.read_bytes()
            if not target.exists():
                write_atomically(target, data)  # 0600, dirs 0700: the menu and icon theme read them as the person
                written += 1
            elif target.read_bytes() != data:
                kept.append(f"{target}: another icon is there (left alone)")
        said = [f"icons written: {written} sizes under {self.icons_dir}"] if written else []
        return said + kept

    def _entry(self) -> EntryFile:
        """The entry file, checked once written as GLib (or the specification) reads it."""
        return EntryFile.build(self.entry_file, STAMP, "launcher entry", self._make)

    def _make(self) -> tuple[str, Callable[[Path], str]]:
        expected = {"Desktop Entry": self.command, "Desktop Action window": _window(self.command)}
        started = {group: desktop_command(argv, WHAT) for group, argv in expected.items()}
        return _body(self.command), partial(desktop_problem, expected=started)

    def _install_entry(self) -> list[str]:
        entry = self._entry()
        found = entry.read()
        if found is not None and not entry.found()[0]:
            return [left_alone(self.entry_file)]
        if not entry.put():
            return [f"launcher entry already installed: {self.entry_file}"]
        verb = "written" if found is None else "updated to start this installation"
        return [f"launcher entry {verb}: {self.entry_file}", f"starts: {shlex.join(self.command)}"]

    def remove(self) -> list[str]:
        """Take away the entry and the icons acp-tray wrote (an edited entry or another icon stays)."""
        said, removed = [], []
        entry = self._entry()
        if entry.remove():
            removed.append(self.entry_file)
            said.append(f"removed {self.entry_file}")
        elif entry.read() is not None:
            said.append(left_alone(self.entry_file))
        for target, source in self.icon_files().items():
            if target.exists() and target.read_bytes() == source.read_bytes():
                target.unlink()
                removed.append(target)
        if len(removed) > (self.entry_file in removed):
            said.append(f"removed the icons under {self.icons_dir}")
        for path in removed:
            self._prune(path.parent)
        return said or ["launcher entry and icons: not installed"]

    def _prune(self, directory: Path) -> None:
        """Remove `directory` and its parents below the data home while they are empty."""
        while directory != self.data_home and self.data_home in directory.parents:
            try:
                directory.rmdir()
            except OSError:  # not empty (or gone): what is left is someone else's
                return
            directory = directory.parent


def install_on_first_run(marker: Path | None = None) -> None:
    """At the daemon's first start (`marker` absent): the launcher for this installation where
    there are app menus, quietly; later starts leave it be, so one the person removed stays removed."""
    marker = marker if marker is not None else paths.first_start_marker()
    if marker.exists():
        return
    try:
        if has_launcher():
            for line in Launcher(this_installation()).install():
                log.info("%s", line)
        write_atomically(marker, "the first start has run (it installs the app-menu launcher on Linux/BSD)\n")
    except (OSError, EntryError) as exc:  # a read-only home, an odd path: the app menu goes without
        log.warning("could not install the launcher entry: %s", exc)
