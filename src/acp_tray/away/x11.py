"""The person's idle time from the X server's MIT-SCREEN-SAVER extension (X11 sessions, Xvfb too).

The display is opened once, at the first question, and kept; a connection that breaks (the X
server went away) is dropped and opened again at the next question.
"""

from __future__ import annotations

import contextlib
import threading
from typing import Any

EXTENSION = "MIT-SCREEN-SAVER"


class X11IdleSource:
    name = "X11 idle time"

    def __init__(self, display_name: str) -> None:
        self._display_name = display_name
        self._display: Any = None  # an Xlib Display once opened
        self._lock = threading.Lock()  # asked from whichever worker thread the caller uses

    def idle_seconds(self) -> float | None:
        with self._lock:
            try:
                display = self._open()
                if display is None:
                    return None
                from Xlib.ext import screensaver  # type: ignore[import-untyped]

                info = screensaver.query_info(display.screen().root)
            except Exception:  # python-xlib's errors for a display that is gone or refuses
                self._drop()
                return None
            return float(info.idle) / 1000.0

    def locked(self) -> bool:
        return False  # X11 itself does not know of a locker: the D-Bus sources do

    def close(self) -> None:
        with self._lock:
            self._drop()

    def _open(self) -> Any:
        if self._display is None:
            from Xlib import display as x11  # type: ignore[import-untyped]

            opened = x11.Display(self._display_name)
            if not opened.has_extension(EXTENSION):
                opened.close()
                return None
            self._display = opened
        return self._display

    def _drop(self) -> None:
        display, self._display = self._display, None
        if display is not None:
            with contextlib.suppress(Exception):
                display.close()
