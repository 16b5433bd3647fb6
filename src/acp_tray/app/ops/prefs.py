"""The preferences op: `prefs.apply`, after the CLI wrote the file (`acp-tray dnd on`)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from acp_tray.control.api import PrefsReply

if TYPE_CHECKING:
    from acp_tray.app.daemon import Daemon


class PrefsOps:
    def __init__(self, daemon: Daemon) -> None:
        self._daemon = daemon

    async def apply(self) -> PrefsReply:
        """Apply the file now; the DND it leads to."""
        self._daemon.apply_prefs_now()
        return {"dnd": self._daemon.router.dnd().describe(), "preferences": str(self._daemon.prefs_path)}
