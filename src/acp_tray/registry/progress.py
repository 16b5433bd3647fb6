"""A download's progress on the terminal: a bar redrawn in place on a terminal (at most ten
times a second), one line at the end otherwise."""

from __future__ import annotations

import time
from typing import TextIO

WIDTH = 30
REDRAW_EVERY = 0.1


def megabytes(size: int) -> str:
    return f"{size / 1_000_000:.1f} MB" if size >= 100_000 else f"{size / 1000:.1f} kB"


class ProgressBar:
    def __init__(self, label: str, stream: TextIO) -> None:
        self._label = label
        self._stream = stream
        self._live = stream.isatty()
        self._drawn = 0.0
        self.size = 0

    def __call__(self, size: int, total: int | None) -> None:
        self.size = size
        now = time.monotonic()
        if not self._live or (now - self._drawn < REDRAW_EVERY and size != total):
            return
        self._drawn = now
        if total:
            filled = WIDTH * size // total
            bar = f"[{'#' * filled}{'.' * (WIDTH - filled)}] {megabytes(size)} of {megabytes(total)}"
        else:
            bar = megabytes(size)
        self._stream.write(f"\r{self._label} {bar}")
        self._stream.flush()

    def done(self) -> None:
        """End the bar's line (or, off a terminal, say what was downloaded)."""
        if self.size == 0:
            return
        if self._live:
            self._stream.write("\n")
        else:
            self._stream.write(f"{self._label} {megabytes(self.size)}\n")
        self._stream.flush()
        self.size = 0  # said once
