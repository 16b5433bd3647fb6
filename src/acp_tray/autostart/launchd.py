"""Start on login on macOS: a LaunchAgent in ~/Library/LaunchAgents, (re)loaded with launchctl."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

from acp_tray.autostart.entries import LAUNCH_AGENT_LABEL, PLIST_STAMP, launch_agent
from acp_tray.autostart.files import Current, EntryFiles
from acp_tray.autostart.xdg import NOT_ENABLED
from acp_tray.desktop.entry import APP
from acp_tray.desktop.entry_file import EntryFile


class LaunchAgentAutostart(EntryFiles):
    @property
    def plist_file(self) -> Path:
        return Path.home() / "Library" / "LaunchAgents" / f"{LAUNCH_AGENT_LABEL}.plist"

    @staticmethod
    def _log_file() -> Path:
        return Path.home() / "Library" / "Logs" / APP / "launchd.log"

    def _plist(self) -> EntryFile:
        """ProgramArguments is an array: nothing quoted, nothing to read back differently."""
        return EntryFile.build(self.plist_file, PLIST_STAMP, "LaunchAgent", self._make, "")

    def _make(self) -> tuple[str, Callable[[Path], str]]:
        return launch_agent(self.command, self._log_file()).decode(), lambda path: ""

    def enable(self, *, systemd: bool = False) -> list[str]:
        self._log_file().parent.mkdir(parents=True, exist_ok=True)
        said = self.write(self._plist())
        if len(said) > 1:  # written or changed: (re)load it for this session
            domain = f"gui/{os.getuid()}"
            self.runner(["launchctl", "bootout", f"{domain}/{LAUNCH_AGENT_LABEL}"])
            loaded = self.runner(["launchctl", "bootstrap", domain, str(self.plist_file)])
            if loaded.returncode != 0:
                said.append(f"launchctl bootstrap failed ({loaded.stderr.strip()}); it starts at the next login")
        return said

    def disable(self) -> list[str]:
        plist = self._plist()
        if plist.found()[0]:
            self.runner(["launchctl", "bootout", f"gui/{os.getuid()}/{LAUNCH_AGENT_LABEL}"])
        return self.remove_ours(plist) or [NOT_ENABLED]

    def current(self) -> Current:
        return self.current_of(self._plist())

    def status(self) -> list[str]:
        return [self.file_status(self._plist())]
