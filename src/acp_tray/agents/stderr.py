"""Drain an agent's stderr so a chatty agent never blocks for long, keeping a bounded tail for diagnostics
at a bounded cost; one tail per run of the agent (`new_run()`), and the plain-text lines it wrote on
stdout instead of JSON-RPC (`keep_stdout()`: "this program is no longer maintained") kept with them.

Every line is redacted as it is read (`redact`: the configured secrets, the keyring values injected
into agents, credential-looking text), so no surface that quotes stderr shows a secret.
What a person is shown (`hint()`, the crash notice) are the last few *meaningful* lines: terminal
sequences (colours such as `ESC[2m`) stripped, lines without a word (the `}` ending a JSON dump)
left out. The full tail, every line, goes to the log when the agent fails or exits (`log_tail()`).
"""

from __future__ import annotations

import asyncio
import logging
import re
from collections import deque
from collections.abc import Callable

from acp_tray.logs.redact import redact

DEFAULT_TAIL_LINES = 50
MAX_LOGGED_LINE = 500
CHUNK = 256 * 1024  # bytes read at once
PAUSE = 0.01  # seconds after a busy read: a flood is taken at ~25 MB/s at most (CHUNK / PAUSE)
BUSY = 16 * 1024  # bytes in one read that mean the agent writes without pause
HINT_LINES = 3
QUIET = 0.1

# CSI (colours, cursor), OSC (titles, links) and other escape sequences, then any control character left
_TERMINAL = re.compile(
    r"\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)?|\x1b[@-_]?|[\x00-\x08\x0b-\x1f\x7f-\x9f]"
)
_WORD = re.compile(r"[^\W\d_]{2,}")  # two letters in a row, in any script


def plain(line: str) -> str:
    """`line` without terminal sequences or control characters."""
    return _TERMINAL.sub("", line)


def meaningful(line: str) -> bool:
    """Whether a person can read something in `line` (not just `}` or `],`)."""
    return _WORD.search(line) is not None


class StderrTail:
    """Reads a stream to its end; logs each line (truncated) and keeps the last few lines."""

    def __init__(
        self, agent: str, max_lines: int = DEFAULT_TAIL_LINES, *, on_line: Callable[[bytes, bool], None] | None = None
    ) -> None:
        self._log = logging.getLogger(f"acp_tray.agent.{agent}")
        self._on_line = on_line  # each line as read (True: from stdout), before it is cut to its logged length
        self._lines: deque[tuple[str, bool]] = deque(maxlen=max_lines)  # meaningful ones; True: from stdout
        self._all: deque[str] = deque(maxlen=max_lines)
        self.bytes_read = 0

    def new_run(self) -> None:
        """The agent starts again: what an earlier run wrote is not this run's reason."""
        self._lines.clear()
        self._all.clear()

    def tail(self) -> list[str]:
        """The last meaningful lines, for a person."""
        return [line for line, _ in self._lines]

    def hint(self) -> str:
        """The last few meaningful lines, to end a status detail with ("" when there are none)."""
        last = list(self._lines)[-HINT_LINES:]
        lines = [line.strip() for line, _ in last]
        what = "output" if any(stdout for _, stdout in last) else "stderr"
        return f"; last {what}: {' | '.join(lines)}" if lines else ""

    def keep_stdout(self, raw: bytes) -> None:
        """A line the agent wrote on stdout that is not JSON-RPC: kept for the hint like a stderr
        line (bounded, without control characters, redacted); the log has it already."""
        if self._on_line is not None:
            self._on_line(raw, True)
        line = self._clean(raw)
        if meaningful(line):
            self._lines.append((line, True))

    async def quiet(self, limit: float) -> None:
        """Wait until nothing more has come for a moment (at most `limit` seconds)."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + limit
        while loop.time() < deadline:
            before = self.bytes_read
            await asyncio.sleep(QUIET)
            if self.bytes_read == before:
                return

    def log_tail(self, why: str) -> None:
        """The whole tail (every line) to the log, once the agent has failed or exited."""
        if self._all:
            # a line per argument: the log escapes what is in each (agent text), not the breaks between them
            self._log.info(
                "%s; its last %d stderr line(s):" + "\n  %s" * len(self._all), why, len(self._all), *self._all
            )

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

    @staticmethod
    def _clean(raw: bytes) -> str:
        return redact(plain(raw[:MAX_LOGGED_LINE].decode("utf-8", "replace"))).rstrip()

    def _keep(self, raw: bytes) -> None:
        if self._on_line is not None:
            self._on_line(raw, False)
        line = self._clean(raw)
        if line.strip():
            self._all.append(line)
            if meaningful(line):
                self._lines.append((line, False))
            self._log.debug("stderr: %s", line)
