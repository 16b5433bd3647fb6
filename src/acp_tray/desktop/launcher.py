"""acp-tray in the desktop's app menu (Linux/BSD): a launcher entry for this installation and the
hicolor icons it and the autostart entry name, under $XDG_DATA_HOME; installed once at the daemon's
first start and by `acp-tray desktop install`, taken away by `acp-tray desktop remove`."""

from __future__ import annotations

import hashlib
import logging
import sys
from pathlib import Path

import platformdirs

from acp_tray.assets import APP_ICON_SIZES, icon_path
from acp_tray.autostart.entries import APP, DESCRIPTION, desktop_exec, this_installation
from acp_tray.files import paths
from acp_tray.files.atomic import write_atomically

log = logging.getLogger(__name__)

# the last line of the entry acp-tray writes: a digest of the lines above it, so that an entry the
# person has edited since (or one of their own at the same place) is told apart and left alone
MARK = "X-ACP-Tray-Launcher"


def has_launcher(system: str = sys.platform) -> bool:
    """Whether `system` (as in `sys.platform`) has XDG app menus: Linux and the BSDs."""
    return system not in ("win32", "darwin")


def _digest(body: str) -> str:
    return hashlib.sha256(body.encode()).hexdigest()[:16]


def launcher_entry(argv: list[str]) -> str:
    """`$XDG_DATA_HOME/applications/acp-tray.desktop` (valid for desktop-file-validate): `argv`
    (this installation's `acp-tray run`) starts it; its action "Open the acp-tray window" runs
    `acp-tray ui` (app menus offer it on the entry's context menu, docks in their jump list)."""
    window = [*argv[:-1], "ui"] if argv[-1:] == ["run"] else [*argv, "ui"]
    body = (
        "[Desktop Entry]\n"
        "Type=Application\n"
        f"Name={APP}\n"
        "GenericName=Agent notifications\n"
        f"Comment={DESCRIPTION}\n"
        f"Exec={desktop_exec(argv)}\n"
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
        f"Exec={desktop_exec(window)}\n"
    )
    return body + f"{MARK}={_digest(body)}\n"


def written_unedited(content: str) -> bool:
    """Whether `content` is an entry acp-tray wrote (for any installation), unedited since."""
    lines = content.splitlines(keepends=True)
    marks = [line for line in lines if line.startswith(f"{MARK}=")]
    if len(marks) != 1 or lines[-1] != marks[0]:
        return False
    return marks[0].strip() == f"{MARK}={_digest(''.join(lines[:-1]))}"


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

    def _install_entry(self) -> list[str]:
        wanted = launcher_entry(self.command)
        found = self._read(self.entry_file)
        if found == wanted:
            return [f"launcher entry already installed: {self.entry_file}"]
        if found is not None and not written_unedited(found):
            return [f"{self.entry_file}: edited since acp-tray wrote it, or not written by acp-tray (left alone)"]
        write_atomically(self.entry_file, wanted)
        verb = "written" if found is None else "updated to start this installation"
        return [f"launcher entry {verb}: {self.entry_file}", f"starts: {' '.join(self.command)}"]

    def remove(self) -> list[str]:
        """Take away the entry and the icons acp-tray wrote (an edited entry or another icon stays)."""
        said, removed = [], []
        found = self._read(self.entry_file)
        if found is not None and written_unedited(found):
            self.entry_file.unlink()
            removed.append(self.entry_file)
            said.append(f"removed {self.entry_file}")
        elif found is not None:
            said.append(f"{self.entry_file}: edited since acp-tray wrote it, or not written by acp-tray (left alone)")
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

    @staticmethod
    def _read(path: Path) -> str | None:
        try:
            return path.read_text(encoding="utf-8")
        except FileNotFoundError:
            return None
        except (OSError, UnicodeDecodeError):
            return ""  # unreadable: not acp-tray's unedited entry, so left alone


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
    except OSError as exc:  # a read-only home: the app menu goes without, the daemon runs
        log.warning("could not install the launcher entry: %s", exc)
