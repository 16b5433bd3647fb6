"""Start on login on Linux and the BSDs: an XDG autostart entry (every desktop reads it), or a
systemd user unit instead (`--systemd`), never both."""

from __future__ import annotations

import os
from collections.abc import Callable
from functools import partial
from pathlib import Path

from acp_tray.autostart.entries import DESKTOP_STAMP, LEGACY_DESKTOP_MARK, SYSTEMD_STAMP, desktop_entry, systemd_unit
from acp_tray.autostart.files import Current, EntryFiles
from acp_tray.desktop.entry import APP, desktop_command, systemd_command
from acp_tray.desktop.entry_file import EntryFile
from acp_tray.desktop.menu_entry import Launcher
from acp_tray.desktop.readback import desktop_problem, unit_problem

NOT_ENABLED = "start on login: not enabled"


def _config_home() -> Path:
    configured = os.environ.get("XDG_CONFIG_HOME", "")
    return Path(configured) if os.path.isabs(configured) else Path.home() / ".config"


class XdgAutostart(EntryFiles):
    @property
    def desktop_file(self) -> Path:
        return _config_home() / "autostart" / f"{APP}.desktop"

    @property
    def unit_file(self) -> Path:
        return _config_home() / "systemd" / "user" / f"{APP}.service"

    @property
    def unit_link(self) -> Path:
        return self.unit_file.parent / "graphical-session.target.wants" / f"{APP}.service"

    def _desktop(self) -> EntryFile:
        def make() -> tuple[str, Callable[[Path], str]]:
            body = desktop_entry(self.command)  # first: its refusal names the XDG autostart entry
            return body, partial(desktop_problem, expected={"Desktop Entry": desktop_command(self.command)})

        return EntryFile.build(self.desktop_file, DESKTOP_STAMP, "XDG autostart entry", make, LEGACY_DESKTOP_MARK)

    def _unit(self) -> EntryFile:
        def make() -> tuple[str, Callable[[Path], str]]:
            expected = systemd_command(self.command)
            return systemd_unit(self.command), partial(unit_problem, expected=expected, runner=self.runner)

        return EntryFile.build(self.unit_file, SYSTEMD_STAMP, "systemd user unit", make, "")

    def enable(self, *, systemd: bool = False) -> list[str]:
        """The one kind written (and checked) first: the other is removed only once it is in place."""
        if systemd:
            written = self._enable_systemd()
            return self.remove_ours(self._desktop()) + written
        written = self.write(self._desktop())
        return self._remove_systemd() + written + Launcher(self.command).install_icons()  # its `Icon=acp-tray`

    def disable(self) -> list[str]:
        return self.remove_ours(self._desktop()) + self._remove_systemd() or [NOT_ENABLED]

    def status(self) -> list[str]:
        linked = not self.unit_file.exists() or self.unit_link.is_symlink()
        unit = self.file_status(self._unit()) + ("" if linked else " (not enabled)")
        return [self.file_status(self._desktop()), unit]

    def current(self) -> Current:
        """On: acp-tray's XDG entry, or its systemd unit and the link that enables it."""
        entry = self.current_of(self._desktop())
        if entry.on or not self.unit_link.is_symlink():
            return entry
        return self.current_of(self._unit())

    def _enable_systemd(self) -> list[str]:
        said = self.write(self._unit())
        if not self.unit_link.is_symlink():  # what `systemctl --user enable` does, without needing a user manager
            self.unit_link.parent.mkdir(parents=True, exist_ok=True)
            self.unit_link.symlink_to(Path("..") / self.unit_file.name)
            said.append(f"enabled: {self.unit_link}")
        reload = self.runner(["systemctl", "--user", "daemon-reload"])
        if reload.returncode != 0:
            said.append("(no systemd user manager reachable now: the unit takes effect at the next login)")
        return said

    def _remove_systemd(self) -> list[str]:
        unit = self._unit()
        if not unit.found()[0]:
            return self.remove_ours(unit)
        if self.unit_link.is_symlink():
            self.unit_link.unlink()
        said = self.remove_ours(unit)
        self.runner(["systemctl", "--user", "daemon-reload"])
        return said
