"""The preferences ops: `prefs.apply`, after the CLI wrote the file (`acp-tray dnd on`), and
`dnd.set`, which writes the daemon's own file (comments kept) and applies it, as the tray's menu does."""

from __future__ import annotations

from typing import TYPE_CHECKING

from acp_tray.control.api import DndArgs, ErrorCode, OpError
from acp_tray.control.replies import DndReply, PrefsReply
from acp_tray.prefs.load import PreferencesError
from acp_tray.presentation.dnd import DurationError

if TYPE_CHECKING:
    from acp_tray.app.daemon import Daemon


class PrefsOps:
    def __init__(self, daemon: Daemon) -> None:
        self._daemon = daemon

    async def apply(self) -> PrefsReply:
        """Apply the file now; the DND it leads to."""
        self._daemon.apply_prefs_now()
        return {"dnd": self._daemon.router.dnd().describe(), "preferences": str(self._daemon.prefs_path)}

    async def dnd(self, args: DndArgs) -> DndReply:
        """Do not disturb off, on, for a duration or until a time; the state it leads to."""
        try:
            state = self._daemon.switch_dnd(args.mode, args.value)
        except DurationError as exc:
            raise OpError(str(exc), ErrorCode.BAD_REQUEST) from None
        except PreferencesError as exc:
            raise OpError(str(exc), ErrorCode.PREFERENCES) from None
        return {"dnd": state.describe(), "until": state.until.isoformat() if state.until is not None else None}
