"""A rotating file that survives a full disk: the history and the daemon's log use it.

A failed write is reported once per episode, without a traceback, and reported again as
working once a write succeeds. A record cut short by a failed write is removed (the file is cut
back to where it was); where that is not possible, and at start when the file does not end in a
newline, the next record starts on a line of its own. Closing never raises. The file is created
0600 and opened with `O_NOFOLLOW` where the platform has it.
"""

from __future__ import annotations

import contextlib
import io
import logging
import logging.handlers
import os
import sys
from collections.abc import Callable
from pathlib import Path

from acp_tray.files.private import open_append, open_regular

Report = Callable[[str], None]


def _to_stderr(message: str) -> None:
    with contextlib.suppress(Exception):
        print(f"acp-tray: {message}", file=sys.stderr, flush=True)


class RotatingFile(logging.handlers.RotatingFileHandler):
    def __init__(self, path: Path, *, max_bytes: int, backups: int, what: str, report: Report = _to_stderr) -> None:
        super().__init__(path, maxBytes=max_bytes, backupCount=backups, encoding="utf-8")
        self._what = what
        self._report = report
        self.failed = False  # in a failure episode
        self._errored = False
        self._torn = not self._ends_with_newline(path)

    @staticmethod
    def _ends_with_newline(path: Path) -> bool:
        try:
            with os.fdopen(open_regular(path, os.O_RDONLY), "rb") as handle:
                handle.seek(-1, 2)
                return handle.read(1) == b"\n"
        except OSError:  # empty (seek before the start) or unreadable: nothing to terminate
            return True

    def _open(self) -> io.TextIOWrapper:
        """0600, and never through a symlink: a link planted at the file's place is an error. Lines end
        in LF on every platform, so a record's bytes are what `write_line` counts (a history record's
        id is where its line starts)."""
        return open_append(Path(self.baseFilename), self.encoding or "utf-8", self.errors, newline="\n")

    def emit(self, record: logging.LogRecord) -> None:
        try:
            text = self.format(record)
        except Exception:
            self.handleError(record)
            return
        self.write_line(text)

    def write_line(self, text: str) -> int | None:
        """Append one record: the log's records through `emit`, the history's lines directly (no
        `LogRecord`, one format, one `fstat` and one write per record: the stdlib's rollover check
        also stats the path twice and formats the record a second time). Where its line starts in
        the file (0: a new file); None: not written, or the file's size is not known."""
        self._errored = False
        start = self._position()
        torn = self._torn
        data = ("\n" + text if torn else text) + self.terminator
        try:
            size = len(data.encode(self.encoding or "utf-8"))
            if self.maxBytes > 0 and start and start + size >= self.maxBytes:  # an empty file is not rotated
                self.doRollover()
                start = 0
            if self.stream is None:
                self.stream = self._open()
            self.stream.write(data)
            self.stream.flush()
        except Exception:
            self._write_failed()
        if self._errored:
            self._cut_back(start)
            return None
        self._torn = False
        if self.failed:
            self.failed = False
            self._report(f"writing the {self._what} {self.baseFilename} works again")
        return None if start is None else start + (1 if torn else 0)  # after a torn record: on a line of its own

    def _position(self) -> int | None:
        """The file's size before a write (the record starts there)."""
        try:
            if self.stream is not None:
                return os.fstat(self.stream.fileno()).st_size
            return os.path.getsize(self.baseFilename)
        except FileNotFoundError:
            return 0
        except (OSError, ValueError):
            return None

    def _cut_back(self, size: int | None) -> None:
        """A failed write may have left part of the record: cut the file back to where it was, and
        drop the stream (its buffer holds the rest); the next record opens it again."""
        stream, self.stream = self.stream, None
        if stream is not None:
            with contextlib.suppress(Exception):  # its flush may write more of the record: cut after
                stream.close()
        try:
            if size is None:
                raise OSError("size unknown")
            os.truncate(self.baseFilename, size)
            self._torn = False
        except OSError:
            self._torn = True

    def handleError(self, record: logging.LogRecord) -> None:  # noqa: N802 (stdlib name)
        self._write_failed()

    def _write_failed(self) -> None:
        self._errored = True
        if not self.failed:
            self.failed = True
            error = sys.exc_info()[1]
            self._report(f"cannot write the {self._what} {self.baseFilename} ({error}); acp-tray goes on without it")

    def close(self) -> None:
        with contextlib.suppress(OSError):
            super().close()
