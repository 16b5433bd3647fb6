"""The person's idle time on Windows: user32's GetLastInputInfo against kernel32's GetTickCount."""

from __future__ import annotations

import ctypes
from ctypes import wintypes

TICKS = 1 << 32  # both are 32-bit millisecond tick counts that wrap after ~49.7 days


class LASTINPUTINFO(ctypes.Structure):
    _fields_ = (("cbSize", wintypes.UINT), ("dwTime", wintypes.DWORD))


class LastInputSource:
    name = "GetLastInputInfo"

    def idle_seconds(self) -> float | None:
        info = LASTINPUTINFO(cbSize=ctypes.sizeof(LASTINPUTINFO))
        windll = getattr(ctypes, "windll", None)  # Windows only
        if windll is None or not windll.user32.GetLastInputInfo(ctypes.byref(info)):
            return None
        now = int(windll.kernel32.GetTickCount()) & (TICKS - 1)
        return ((now - int(info.dwTime)) % TICKS) / 1000.0

    def locked(self) -> bool:
        return False  # a locked workstation takes no input: its idle time grows and says enough
