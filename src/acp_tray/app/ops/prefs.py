"""The preferences ops: `prefs.apply`, after the CLI wrote the file (`acp-tray dnd on`); `dnd.set`,
which writes the daemon's own file (comments kept) and applies it, as the tray's menu does; and
`prefs.get` / `prefs.set`, the window's Preferences page: every setting for a form, and the changes
it sends, checked as the file is, written the same way and applied before the answer."""

from __future__ import annotations

from typing import TYPE_CHECKING

from acp_tray.control.api import DndArgs, PrefsSetArgs
from acp_tray.control.errors import ErrorCode, OpError
from acp_tray.control.replies import DndReply, PrefsFormReply, PrefsReply, PrefsSavedReply
from acp_tray.prefs.form import check_changes, choices, form_values
from acp_tray.prefs.load import PreferencesError, file_version, read_preferences
from acp_tray.prefs.model import Preferences
from acp_tray.prefs.write import set_values
from acp_tray.presentation.dnd import DurationError

if TYPE_CHECKING:
    from acp_tray.app.publisher import TrayPublisher
    from acp_tray.app.reloader import PrefsReloader
    from acp_tray.presentation.router import Router


class PrefsOps:
    def __init__(self, reloader: PrefsReloader, router: Router, publisher: TrayPublisher) -> None:
        self._reloader = reloader
        self._router = router  # the preferences in force, and the DND they lead to
        self._publisher = publisher

    async def apply(self) -> PrefsReply:
        """Apply the file now; the DND it leads to."""
        self._reloader.apply_now()
        return {"dnd": self._router.dnd().describe(), "preferences": str(self._reloader.path)}

    async def dnd(self, args: DndArgs) -> DndReply:
        """Do not disturb off, on, for a duration or until a time; the state it leads to."""
        try:
            self._reloader.switch_dnd(args.mode, args.value)  # as the tray does it: written, applied, shown
            self._publisher.publish_now()
        except DurationError as exc:
            raise OpError(str(exc), ErrorCode.BAD_REQUEST) from None
        except PreferencesError as exc:
            raise OpError(str(exc), ErrorCode.PREFERENCES) from None
        state = self._router.dnd()
        return {"dnd": state.describe(), "until": state.until.isoformat() if state.until is not None else None}

    async def form(self) -> PrefsFormReply:
        """Every setting as the file says it (or, when the file cannot be read, as in force) for a form."""
        path, problem = self._reloader.path, None
        prefs = self._router.prefs
        version = file_version(path)
        if path is not None:
            try:
                prefs = read_preferences(path)
            except PreferencesError as exc:
                problem = str(exc)
        values = form_values(prefs)
        return {
            "path": str(path) if path is not None else None,
            "version": version,
            "values": values,
            "defaults": form_values(Preferences()),
            "choices": choices(list(values)),
            "problem": problem,
        }

    async def change(self, args: PrefsSetArgs) -> PrefsSavedReply:
        """Check the changes as the file is checked; write only when every value is right, only the
        settings that change, and only over the version they were made from; apply, then answer."""
        path = self._reloader.path
        if path is None:
            raise OpError(
                "acp-tray runs on its built-in settings: there is no preferences file to change", ErrorCode.PREFERENCES
            )
        version = file_version(path)
        if args.version != version:
            raise OpError(f"{path} changed since these settings were read from it", ErrorCode.CHANGED)
        try:
            checked = check_changes(path.read_text(encoding="utf-8"), path, args.changes)
            if checked.writes and not checked.problems:
                self._reloader.change_prefs(lambda file: set_values(file, checked.writes), saved=True)
        except (PreferencesError, OSError, UnicodeDecodeError) as exc:
            raise OpError(str(exc), ErrorCode.PREFERENCES) from None
        return {
            "saved": not checked.problems,
            "problems": checked.problems,
            "changed": sorted(".".join(key) for key in checked.writes),
            "version": file_version(path),
        }
