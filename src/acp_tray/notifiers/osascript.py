"""Native notifications on macOS from a plain interpreter: `osascript` runs a fixed AppleScript
`display notification`, and the agent's text reaches it only as arguments of its `on run argv`
handler, never as script source: a title with `"` or `& do shell script "…"` stays text.

plyer's macOS backend needs pyobjus (built with a compiler) and the deprecated
`NSUserNotificationCenter`, which shows nothing for a process without an app bundle, so this
is the default there and plyer the next resort.

A notification with a sound (its severity's or an approval's `sound`) plays a macOS system sound:
freedesktop sound names mean nothing to macOS, so every sound is the one below.
"""

from __future__ import annotations

import asyncio
import shutil
import sys

from acp_tray.notifiers.backend import BackendUnavailableError
from acp_tray.notifiers.content import Notification
from acp_tray.notifiers.plyer_backend import not_an_option

# The whole script: constant. argv = [title, message] (and the sound's name)
SCRIPT = "on run argv\ndisplay notification (item 2 of argv) with title (item 1 of argv)\nend run"
SCRIPT_WITH_SOUND = SCRIPT.replace("(item 1 of argv)", "(item 1 of argv) sound name (item 3 of argv)")
MAC_SOUND = "Glass"  # in /System/Library/Sounds on every macOS
TIMEOUT = 10.0  # seconds for osascript to hand the notification over


def osascript_argv(program: str, notification: Notification) -> list[str]:
    """The command line: the script is constant; the text follows it as plain arguments, none of
    which can be taken for an option (a leading `-` gets a zero-width space in front)."""
    text = [not_an_option(notification.summary), not_an_option(notification.body or " ")]
    if notification.presentation.sound:
        return [program, "-e", SCRIPT_WITH_SOUND, *text, MAC_SOUND]
    return [program, "-e", SCRIPT, *text]


class OsascriptBackend:
    name = "osascript"

    def __init__(self) -> None:
        self._program: str | None = None

    async def start(self) -> str:
        if sys.platform != "darwin":
            raise BackendUnavailableError("osascript is macOS only")
        self._program = shutil.which("osascript")
        if self._program is None:
            raise BackendUnavailableError("osascript is not on PATH")
        return f"osascript display notification ({self._program})"

    async def notify(self, notification: Notification) -> None:
        if self._program is None:
            raise BackendUnavailableError("not started")
        try:
            process = await asyncio.create_subprocess_exec(
                *osascript_argv(self._program, notification),
                stdin=asyncio.subprocess.DEVNULL,
                stdout=asyncio.subprocess.DEVNULL,
                stderr=asyncio.subprocess.PIPE,
            )
        except OSError as exc:
            raise BackendUnavailableError(f"cannot run osascript: {exc}") from exc
        try:
            _, stderr = await asyncio.wait_for(process.communicate(), TIMEOUT)
        except TimeoutError:
            process.kill()
            await process.wait()
            raise BackendUnavailableError(f"osascript did not finish within {TIMEOUT:.0f} s") from None
        if process.returncode != 0:
            reason = stderr.decode("utf-8", "replace").strip()[-300:] or f"exit status {process.returncode}"
            raise BackendUnavailableError(f"osascript failed: {reason}")

    async def close(self, group: int) -> None:
        """macOS offers a script no way to take a notification back."""
        return None

    async def aclose(self) -> None:
        return None
