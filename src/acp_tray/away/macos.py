"""The person's idle time on macOS: IOHIDSystem's HIDIdleTime (nanoseconds), read with `ioreg`.

Reading only: no input-monitoring permission is asked for. Not exercised by this project's tests
(there is no macOS machine in them).
"""

from __future__ import annotations

import plistlib
import subprocess

COMMAND = ("/usr/sbin/ioreg", "-a", "-r", "-d", "1", "-c", "IOHIDSystem")
TIMEOUT = 2.0


class HIDIdleSource:
    name = "HID idle time"

    def idle_seconds(self) -> float | None:
        try:
            result = subprocess.run(COMMAND, capture_output=True, timeout=TIMEOUT, check=True)
            entries = plistlib.loads(result.stdout)
        except (OSError, subprocess.SubprocessError, plistlib.InvalidFileException, ValueError):
            return None
        for entry in entries if isinstance(entries, list) else []:
            idle = entry.get("HIDIdleTime") if isinstance(entry, dict) else None
            if isinstance(idle, int):
                return idle / 1e9
        return None

    def locked(self) -> bool:
        return False  # not read: the idle time grows while the screen is locked
