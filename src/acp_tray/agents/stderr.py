"""Drain an agent's stderr so a chatty agent never blocks, keeping a bounded tail for diagnostics."""

from __future__ import annotations

import asyncio
import logging
from collections import deque

DEFAULT_TAIL_LINES = 50
MAX_LOGGED_LINE = 500


class StderrTail:
    """Reads a stream to its end; logs each line (truncated) and keeps the last few lines."""

    def __init__(self, agent: str, max_lines: int = DEFAULT_TAIL_LINES) -> None:
        self._log = logging.getLogger(f"acp_tray.agent.{agent}")
        self._lines: deque[str] = deque(maxlen=max_lines)
        self.bytes_read = 0

    def tail(self) -> list[str]:
        return list(self._lines)

    async def drain(self, stream: asyncio.StreamReader) -> None:
        pending = b""  # an unfinished line, kept to at most MAX_LOGGED_LINE bytes
        while True:
            chunk = await stream.read(64 * 1024)
            if not chunk:
                self._keep(pending)
                return
            self.bytes_read += len(chunk)
            *complete, rest = (pending + chunk).split(b"\n")
            for raw in complete:
                self._keep(raw)
            pending = rest[:MAX_LOGGED_LINE]

    def _keep(self, raw: bytes) -> None:
        line = raw[:MAX_LOGGED_LINE].decode("utf-8", "replace").rstrip()
        if line.strip():
            self._lines.append(line)
            self._log.debug("stderr: %s", line)
