"""Start on login on macOS: a LaunchAgent in ~/Library/LaunchAgents, (re)loaded with launchctl."""

from __future__ import annotations

import os
from pathlib import Path

from acp_tray.autostart.entries import APP, LAUNCH_AGENT_LABEL, launch_agent
from acp_tray.autostart.files import Current, EntryFiles
from acp_tray.autostart.xdg import NOT_ENABLED


class LaunchAgentAutostart(EntryFiles):
    @property
    def plist_file(self) -> Path:
        return Path.home() / "Library" / "LaunchAgents" / f"{LAUNCH_AGENT_LABEL}.plist"

    @staticmethod
    def _log_file() -> Path:
        return Path.home() / "Library" / "Logs" / APP / "launchd.log"

    def enable(self, *, systemd: bool = False) -> list[str]:
        self._log_file().parent.mkdir(parents=True, exist_ok=True)
        plist = launch_agent(self.command, self._log_file())
        said = self.write(self.plist_file, plist, LAUNCH_AGENT_LABEL, "LaunchAgent")
        if len(said) > 1:  # written or changed: (re)load it for this session
            domain = f"gui/{os.getuid()}"
            self.runner(["launchctl", "bootout", f"{domain}/{LAUNCH_AGENT_LABEL}"])
            loaded = self.runner(["launchctl", "bootstrap", domain, str(self.plist_file)])
            if loaded.returncode != 0:
                said.append(f"launchctl bootstrap failed ({loaded.stderr.strip()}); it starts at the next login")
        return said

    def disable(self) -> list[str]:
        if self.is_ours(self.plist_file, LAUNCH_AGENT_LABEL):
            self.runner(["launchctl", "bootout", f"gui/{os.getuid()}/{LAUNCH_AGENT_LABEL}"])
        return self.remove_ours(self.plist_file, LAUNCH_AGENT_LABEL) or [NOT_ENABLED]

    def current(self) -> Current:
        return self.current_of(self.plist_file, LAUNCH_AGENT_LABEL, launch_agent(self.command, self._log_file()))

    def status(self) -> list[str]:
        return [self.file_status(self.plist_file, LAUNCH_AGENT_LABEL, launch_agent(self.command, self._log_file()))]
