"""The preferences ops: `prefs.apply`, after the CLI wrote the file (`acp-tray dnd on`); `dnd.set`,
which writes the daemon's own file (comments kept) and applies it, as the tray's menu does; and
`prefs.get` / `prefs.set`, the window's Preferences page: every setting for a form, and the form's
fields typed by the model, checked as the file is, written the same way and applied before the answer
(with the form to show after it). Each request reads the file once."""

from __future__ import annotations

from typing import TYPE_CHECKING

from acp_tray.control.api import DndArgs, PrefsSetArgs
from acp_tray.control.errors import ErrorCode, OpError
from acp_tray.control.replies import DndReply, PrefsFormReply, PrefsReply, PrefsSavedReply
from acp_tray.prefs.form import check_changes, choices, default_values, form_values, from_fields
from acp_tray.prefs.load import PreferencesError, Snapshot, snapshot
from acp_tray.prefs.model import Preferences
from acp_tray.prefs.write import set_values
from acp_tray.presentation.dnd import DurationError

if TYPE_CHECKING:
    from acp_tray.app.publisher import TrayPublisher
    from acp_tray.app.reloader import PrefsReloader
    from acp_tray.presentation.router import Router

NO_FILE = "acp-tray runs on its built-in settings: there is no preferences file to change"


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

    def _form(self, version: str, prefs: Preferences | None, problem: str | None = None) -> PrefsFormReply:
        """Every setting as the file's `prefs` say it (None: it cannot be read, or there is no file: as in force)."""
        values = form_values(prefs if prefs is not None else self._router.prefs)
        return {
            "path": str(self._reloader.path) if self._reloader.path is not None else None,
            "version": version,
            "values": values,
            "defaults": default_values(),
            "choices": choices(list(values)),
            "problem": problem,
        }

    def _read(self) -> Snapshot:
        """The file, read once for the request (no file: running on built-in settings)."""
        path = self._reloader.path
        return snapshot(path) if path is not None else Snapshot("", None, None)

    async def form(self) -> PrefsFormReply:
        """Every setting as the file says it (or, when the file cannot be read, as in force) for a form."""
        read = self._read()
        return self._form(read.version, read.prefs, read.problem)

    async def change(self, args: PrefsSetArgs) -> PrefsSavedReply:
        """A form's fields typed by the settings' model and checked as the file is; written only when
        every value is right, only the settings that change, and only over the version they were
        made from (or any, to overwrite); applied; answered with the form to show after it. The
        file is read once."""
        read, path = self._read(), self._reloader.path
        form = self._form(read.version, read.prefs, read.problem)
        sent = from_fields(args.fields, form["values"])
        answer: PrefsSavedReply = {
            "saved": False,
            "problems": {},
            "stale": False,
            "failed": "",
            "changed": [],
            "sent": sent,
            "form": form,
        }
        if path is None or read.text is None:
            return {**answer, "failed": read.problem or NO_FILE}
        if not args.overwrite and args.version != read.version:
            return {**answer, "stale": True}
        text = read.text
        try:
            checked = check_changes(text, path, sent, form["values"] if read.prefs is not None else {})
            if checked.problems:
                return {**answer, "problems": checked.problems}
            if checked.writes:  # written from the text read, applied at once
                self._reloader.change_prefs(lambda file: set_values(file, text, checked.writes), saved=True)
                form = self._form(self._reloader.version, self._router.prefs)
        except (PreferencesError, OSError) as exc:
            return {**answer, "failed": str(exc)}
        changed = sorted(".".join(key) for key in checked.writes)
        return {**answer, "saved": True, "changed": changed, "form": form}
