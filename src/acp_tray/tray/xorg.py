"""pystray's X11 icon, driven from other threads without sharing its X connection.

pystray's X11 backend runs every icon change on its loop's thread: a caller on another thread
posts a message to the icon's window over the loop's own connection, flushes it, and waits.
python-xlib does not keep one connection safe across threads: now and then the loop waits for a
reply that the other thread's flush took, and the loop and its caller wait for ever (an icon that
never shows, a daemon that never starts its agents, a quit that never ends). Here a caller on
another thread posts the same message over a connection of its own; the loop's connection is
used by the loop's thread alone.
"""

from __future__ import annotations

import logging
import threading
from typing import Any

log = logging.getLogger(__name__)

# the methods pystray's X11 icon runs on its loop's thread (its `_rewrite_implementation`)
LOOP_CALLS = ("_show", "_hide", "_update_icon", "_update_title")


class OwnConnection:
    """Routes `icon`'s loop calls made on other threads through a second X connection."""

    def __init__(self, icon: Any) -> None:
        self._icon = icon
        self._lock = threading.Lock()  # one call at a time: the loop answers on one queue
        self._display: Any = None
        self._stopped = False
        for name in LOOP_CALLS:
            setattr(icon, name, self._routed(name, getattr(icon, name)))

    def _routed(self, name: str, pystrays: Any) -> Any:
        icon = self._icon
        message = f"_PYSTRAY_{name.upper()}"  # the atom pystray's loop answers to

        def call() -> None:
            loop = getattr(icon, "_thread", None)
            if self._stopped:
                return  # the loop is gone: nobody would answer
            if loop is None or loop is threading.current_thread():
                pystrays()  # not running yet, or on the loop: pystray's own way
                return
            with self._lock:
                self._post(message)
                result = icon._queue.get()
            if result is not True:
                raise result[1].with_traceback(result[2])

        return call

    def _post(self, message: str) -> None:
        from Xlib import X, display  # type: ignore[import-untyped]
        from Xlib.protocol import event  # type: ignore[import-untyped]

        if self._display is None:
            self._display = display.Display()
        window = self._display.create_resource_object("window", self._icon._window.id)
        self._display.send_event(
            window,
            event.ClientMessage(
                type=X.ClientMessage,
                client_type=self._display.intern_atom(message),
                window=window.id,
                data=(32, (X.CurrentTime, 0, 0, 0, 0)),
            ),
            event_mask=X.NoEventMask,
        )
        self._display.flush()

    def stop(self) -> bool:
        """End the loop: its window destroyed over the second connection, the server tells the
        loop, which ends (pystray's own stop would post a message and wait, as above)."""
        try:
            with self._lock:
                self._stopped = True
                if self._display is None:
                    from Xlib import display

                    self._display = display.Display()
                self._display.create_resource_object("window", self._icon._window.id).destroy()
                self._display.sync()
                self._display.close()
                self._display = None
        except Exception as exc:  # then pystray's own stop
            log.debug("could not end the X11 tray loop through a second connection: %s", exc)
            return False
        self._icon._running = False  # its loop has ended: nothing left for pystray's stop to do
        return True
