"""Hot reload: call back when the preferences file changes on disk, woken only by the change.

On Linux the kernel's inotify (through `asyncinotify`) wakes the loop when something in the
file's directory changes, and never otherwise: an idle daemon does not tick. Elsewhere
`watchfiles` (FSEvents, ReadDirectoryChangesW), which checks for its stop signal every 50 ms.
The directory is watched, not the file, so that editors which replace the file are seen too; a
symlink is followed to its target (a change to the link or to the target counts), and the
target is looked up again after each change, so a link pointed elsewhere is followed there.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from asyncinotify import Event, Inotify, Mask, Watch

log = logging.getLogger(__name__)

# One save is often several events (truncate, write, close; or write a copy, rename it over):
# call back once they stop for QUIET seconds, and at most SETTLE seconds after the first.
QUIET = 0.05
SETTLE = 0.3


async def watch_file(path: Path, on_change: Callable[[], None], stop: asyncio.Event) -> None:
    """Call `on_change` after each change to `path` (or its symlink's target) until `stop` is set."""
    try:
        if sys.platform == "linux":
            await _watch_inotify(path, on_change, stop)
        else:
            await _watch_polling(path, on_change, stop)
    except (OSError, RuntimeError, ImportError) as exc:  # the directory vanished, no watcher installed, …
        log.warning("no longer watching %s for changes (%s); restart acp-tray to pick up edits", path, exc)


def _names(path: Path) -> set[Path]:
    """The paths whose change is a change of `path`: itself and, for a symlink, what it points to."""
    return {Path(os.path.abspath(path)), path.resolve()}


class _Debounce:
    """Calls back once per burst of events, QUIET after the last (SETTLE after the first at most)."""

    def __init__(self, on_change: Callable[[], None]) -> None:
        self._on_change = on_change
        self._loop = asyncio.get_running_loop()
        self._timer: asyncio.TimerHandle | None = None
        self._deadline: float | None = None

    def changed(self) -> None:
        now = self._loop.time()
        if self._deadline is None:
            self._deadline = now + SETTLE
        if self._timer is not None:
            self._timer.cancel()
        self._timer = self._loop.call_at(min(now + QUIET, self._deadline), self._fire)

    def _fire(self) -> None:
        self._timer = self._deadline = None
        self._on_change()

    def cancel(self) -> None:
        if self._timer is not None:
            self._timer.cancel()


async def _watch_inotify(path: Path, on_change: Callable[[], None], stop: asyncio.Event) -> None:
    from asyncinotify import Inotify, Mask

    mask = Mask.MODIFY | Mask.ATTRIB | Mask.CLOSE_WRITE | Mask.MOVE | Mask.CREATE | Mask.DELETE | Mask.ONLYDIR
    debounce = _Debounce(on_change)
    stopping = asyncio.ensure_future(stop.wait())
    event: asyncio.Future[Event] | None = None
    with Inotify() as inotify:
        names = _names(path)
        watches = _rewatch(inotify, {}, names, mask)
        try:
            while True:
                event = asyncio.ensure_future(inotify.get())
                await asyncio.wait((event, stopping), return_when=asyncio.FIRST_COMPLETED)
                if not event.done():
                    return  # stopped
                if _ended(event.result(), watches):
                    if not watches:
                        raise OSError(f"{path.parent} is gone")
                elif event.result().path in names or Mask.Q_OVERFLOW in event.result().mask:
                    debounce.changed()
                    names = _names(path)  # a symlink may point elsewhere now
                    watches = _rewatch(inotify, watches, names, mask)
        finally:
            debounce.cancel()
            for pending in (event, stopping):
                if pending is not None and not pending.done():
                    pending.cancel()
                    with contextlib.suppress(asyncio.CancelledError):
                        await pending


def _rewatch(inotify: Inotify, watches: dict[Path, Watch], names: set[Path], mask: Mask) -> dict[Path, Watch]:
    """Watch the directories of `names`: add the new ones, drop those no longer needed."""
    wanted = {name.parent for name in names}
    for directory in set(watches) - wanted:
        with contextlib.suppress(OSError):
            inotify.rm_watch(watches[directory])
    kept = {directory: watch for directory, watch in watches.items() if directory in wanted}
    for directory in wanted - set(watches):
        kept[directory] = inotify.add_watch(directory, mask)
    return kept


def _ended(event: Event, watches: dict[Path, Watch]) -> bool:
    """Whether `event` says a watch ended (its directory deleted or unmounted); forgets that watch."""
    from asyncinotify import Mask

    if Mask.IGNORED not in event.mask:
        return False
    for directory, watch in list(watches.items()):
        if watch is event.watch:
            del watches[directory]
    return True


async def _watch_polling(path: Path, on_change: Callable[[], None], stop: asyncio.Event) -> None:
    import watchfiles

    names = {str(name) for name in await asyncio.to_thread(_names, path)}
    directory = (await asyncio.to_thread(path.resolve)).parent

    def relevant(_change: watchfiles.Change, changed: str) -> bool:
        return changed in names or str(Path(changed).resolve()) in names

    async for _changes in watchfiles.awatch(
        directory, watch_filter=relevant, debounce=300, step=50, stop_event=stop, recursive=False
    ):
        on_change()
