"""The preferences reloader: applies the file when it has settled after a change (or at once when
acp-tray itself wrote it); an invalid file is reported as acp-tray's own notice and the last good
settings stay in force. Both answer what the person did (saved the file): shown whatever the routes
and DND say, and "Preferences applied" (after a save, or once the file is right again) takes the
errors it answers back from the screen and Recent."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from pathlib import Path

from acp_tray.app.fleet import Fleet
from acp_tray.app.publisher import Changed, TrayPublisher
from acp_tray.events import EventSink, NoticeReceived
from acp_tray.logs.redact import looks_secret, remember_secrets, url_secrets
from acp_tray.prefs.load import PreferencesError, file_version, snapshot
from acp_tray.prefs.model import Preferences
from acp_tray.prefs.watch import watch_file
from acp_tray.prefs.write import Written, set_dnd
from acp_tray.presentation.dnd import DndMode, dnd_switch
from acp_tray.presentation.router import ACP_TRAY, Router
from acp_tray.protocol.notice import Notice
from acp_tray.timer import OneTimer

log = logging.getLogger(__name__)

SETTLE_FOR = 0.5  # seconds a changed preferences file must stay unchanged before it is applied
TOPIC = "preferences"  # a later notice about the file takes the earlier ones back


def remember_configured_secrets(prefs: Preferences) -> None:
    """Header values, secret-looking env values and a URL's password and query secrets: redacted
    from every log line and quoted stderr."""
    values: list[str] = []
    for config in prefs.agents.values():
        values += config.headers.values()
        values += [value for name, value in config.env.items() if looks_secret(name)]
        values += url_secrets(config.url or "")
    remember_secrets(values)


def only_dnd_switched(before: Preferences, after: Preferences) -> bool:
    """Whether `after` differs from `before` in DND's switch (its `enabled` and `until`) and nothing else."""
    switch = {"enabled": after.dnd.enabled, "until": after.dnd.until}
    return before != after and before.model_copy(update={"dnd": before.dnd.model_copy(update=switch)}) == after


class PrefsReloader:
    def __init__(
        self, path: Path | None, router: Router, fleet: Fleet, publisher: TrayPublisher, report: EventSink
    ) -> None:
        self.path = path  # None: running on built-in defaults
        self._router = router
        self._fleet = fleet
        self._publisher = publisher
        self._report = report
        self._last_error: str | None = None
        self._settle_timer = OneTimer()
        self._applied: str | None = None  # the file's version (a digest of its bytes) when it was last applied
        # the version as last seen settled, read or written: what `watch` tells the window, with no
        # file read on each of its wake-ups
        self.version = file_version(path)
        remember_configured_secrets(router.prefs)

    async def watch(self, stop: asyncio.Event) -> None:
        """Follow the file until `stop` is set (a symlinked file: its target is what changes)."""
        assert self.path is not None
        await watch_file(self.path.resolve(), self.changed, stop)

    def close(self) -> None:
        self._settle_timer.cancel()

    def changed(self) -> None:
        """The watcher saw the file change: reload once it has been still for SETTLE_FOR seconds
        (a file written in pieces is never applied half-written)."""
        before = self._signature()
        self._settle_timer.set(SETTLE_FOR, lambda: self._reload_when_still(before))

    def _signature(self) -> tuple[int, int] | None:
        assert self.path is not None
        try:
            info = self.path.stat()
        except OSError:
            return None
        return info.st_size, info.st_mtime_ns

    def _reload_when_still(self, before: tuple[int, int] | None) -> None:
        if self._signature() != before:  # still being written
            self.changed()
            return
        if not self._already_applied():  # acp-tray's own write, or `apply_now`, came first
            self.reload(saved=True)

    def apply_now(self) -> None:
        """The CLI has just written the file (`acp-tray dnd on`): apply it at once, so that what the
        person runs next (`acp-tray status`) sees it, rather than once the watcher saw it settle."""
        self._settle_timer.cancel()
        if not self._already_applied():  # the watcher came first
            self.reload()

    def _read_version(self) -> str | None:
        """The file's version now (None: it cannot be read), kept as `version` too."""
        assert self.path is not None
        self.version = file_version(self.path)
        return self.version or None

    def _already_applied(self) -> bool:
        """The file says what was last applied (by content: a save within the same timestamp tick
        is still seen). Not after an error: applying it again says that all is well again."""
        return self._last_error is None and self._applied is not None and self._read_version() == self._applied

    def reload(self, *, saved: bool = False) -> None:
        """The file changed: apply it if valid, else report and keep the last good settings.
        `saved`: by the person, who is told it was applied."""
        assert self.path is not None
        read = snapshot(self.path)  # read once: its version is that of the settings applied
        self.version = read.version
        if read.text == "":  # emptied (`: > config.toml`), or a save's first step
            self.report_error(
                f"{self.path}: the file is empty; acp-tray does not apply an empty file "
                "(to go back to the defaults, leave a comment in it, or delete it and restart acp-tray)"
            )
            return
        prefs = read.prefs
        if prefs is None:
            self.report_error(read.problem or f"{self.path}: cannot read")
            return
        # a save that only switched DND (`acp-tray dnd on` seen before it asked to apply it) says itself
        self._take(prefs, read.version or None, saved=saved and not only_dnd_switched(self._router.prefs, prefs))
        log.info("preferences reloaded from %s; do not disturb: %s", self.path, self._router.dnd().describe())
        self._follow(prefs)
        self._publisher.publish_now()

    def change_prefs(self, change: Callable[[Path], Preferences | Written], *, saved: bool = False) -> None:
        """Write the change to the file (comments kept) and apply it now; the watcher agrees later.
        `saved`: a save of the person's settings (the window's), who is told it was applied. A change
        that says what it wrote (`Written`) is not read back for its version."""
        if self.path is None:
            raise PreferencesError("no preferences file to change (running on built-in defaults)")
        result = change(self.path)
        if isinstance(result, Written):
            prefs, self.version = result.prefs, result.version
        else:
            prefs = result
            self._read_version()
        self._take(prefs, self.version or None, saved=saved)
        self._follow(prefs)

    def switch_dnd(self, mode: DndMode, value: str | None = None) -> None:
        """Do not disturb switched as the tray's menu and the control API's `dnd.set` ask (see
        `dnd_switch`): written to the file and applied now. A bad duration is a DurationError."""
        router = self._router
        enabled, until = dnd_switch(mode, value, router.clock.now(), router.prefs.dnd.morning)
        self.change_prefs(lambda path: set_dnd(path, enabled=enabled, until=until))

    def _take(self, prefs: Preferences, version: str | None, *, saved: bool = False) -> None:
        fixed, self._last_error = self._last_error is not None, None
        self._applied = version
        remember_configured_secrets(prefs)
        self._router.update_prefs(prefs)
        if fixed or saved:
            said = "The file is right again: its" if fixed else "Its"
            self._say(Notice("info", "Preferences applied", f"{said} settings are in force ({self.path})."))

    def _follow(self, prefs: Preferences) -> None:
        """The agents follow the applied preferences; the change feed is told."""
        self._fleet.sync(prefs)
        self._publisher.changed(Changed.AGENTS)
        self._publisher.dnd_may_have_changed()

    def report_error(self, message: str) -> None:
        if message == self._last_error:
            return  # the same problem saved again: said once is enough
        self._last_error = message
        log.error("preferences not applied, keeping the last good settings:\n%s", message)
        self._say(Notice("error", "Preferences not applied", f"{message}\nThe last good settings stay in force."))

    def _say(self, notice: Notice) -> None:
        """The answer to the person's save: shown whatever the routes and DND say; it takes back
        what was said about the file before."""
        self._report(NoticeReceived(ACP_TRAY, "", notice, source=ACP_TRAY, attention="answer", topic=TOPIC))
