"""Drain an agent's stderr so a chatty agent never blocks for long, keeping a bounded tail for diagnostics
at a bounded cost."""

from __future__ import annotations

import asyncio
import logging
from collections import deque

DEFAULT_TAIL_LINES = 50
MAX_LOGGED_LINE = 500
CHUNK = 256 * 1024  # bytes read at once
PAUSE = 0.01  # seconds after a busy read: a flood is taken at ~25 MB/s at most (CHUNK / PAUSE)
BUSY = 16 * 1024  # bytes in one read that mean the agent writes without pause


class StderrTail:
    """Reads a stream to its end; logs each line (truncated) and keeps the last few lines."""

    def __init__(self, agent: str, max_lines: int = DEFAULT_TAIL_LINES) -> None:
        self._log = logging.getLogger(f"acp_tray.agent.{agent}")
        self._lines: deque[str] = deque(maxlen=max_lines)
        self.bytes_read = 0

    def tail(self) -> list[str]:
        return list(self._lines)

    async def drain(self, stream: asyncio.StreamReader) -> None:
        """Bounded cost however fast the agent writes: large reads; of each read only the lines
        that can still be in the tail are looked at (the rest are counted); and after a busy read
        a short pause, so a flood is taken at most at about CHUNK / PAUSE bytes a second (beyond
        that the agent waits on its own writes)."""
        pending = b""  # an unfinished line, kept to at most MAX_LOGGED_LINE bytes
        skipped = 0  # lines not looked at since the last time that was logged
        said = float("-inf")
        loop = asyncio.get_running_loop()
        while True:
            chunk = await stream.read(CHUNK)
            if not chunk:
                self._keep(pending)
                return
            self.bytes_read += len(chunk)
            data = pending + chunk
            start = len(data)
            for _ in range(2 * (self._lines.maxlen or DEFAULT_TAIL_LINES)):  # the last lines only (blanks too)
                start = data.rfind(b"\n", 0, start)
                if start == -1:
                    break
            if start > 0:
                skipped += data.count(b"\n", 0, start)
                data = data[start + 1 :]
            *complete, rest = data.split(b"\n")
            for raw in complete:
                self._keep(raw)
            pending = rest[:MAX_LOGGED_LINE]
            if skipped and loop.time() - said >= 1.0:
                self._log.debug("stderr: (%d lines not kept: the agent writes faster than that)", skipped)
                skipped, said = 0, loop.time()
            if len(chunk) >= BUSY:  # a writer that keeps the pipe full: what comes meanwhile waits in the buffer
                await asyncio.sleep(PAUSE)

    def _keep(self, raw: bytes) -> None:
        line = raw[:MAX_LOGGED_LINE].decode("utf-8", "replace").rstrip()
        if line.strip():
            self._lines.append(line)
            self._log.debug("stderr: %s", line)
