"""Hot reload: call back when the preferences file changes on disk, without polling.

Uses OS file notifications through `watchfiles` (inotify, FSEvents, ReadDirectoryChangesW);
the parent directory is watched so that editors which replace the file are seen too.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from pathlib import Path

import watchfiles

log = logging.getLogger(__name__)


async def watch_file(path: Path, on_change: Callable[[], None], stop: asyncio.Event) -> None:
    target = path.resolve()

    def relevant(_change: watchfiles.Change, changed: str) -> bool:
        return Path(changed).resolve() == target

    try:
        async for _changes in watchfiles.awatch(
            target.parent, watch_filter=relevant, debounce=300, step=50, stop_event=stop, recursive=False
        ):
            on_change()
    except (OSError, RuntimeError) as exc:  # e.g. the directory vanished, or no watcher available
        log.warning("no longer watching %s for changes (%s); restart acp-tray to pick up edits", path, exc)
