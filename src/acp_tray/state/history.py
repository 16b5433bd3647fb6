"""The local history: every notice and malformed update (notice or known v2 variant), one JSON object a line.

Local retention only: nothing in here is ever sent to an agent. Rotation is the standard
library's `RotatingFileHandler`; a write that fails (disk full, permissions) is reported once
as a warning and presentation goes on.
"""

from __future__ import annotations

import errno
import json
import logging
import os
import zlib
from collections.abc import Iterator
from pathlib import Path
from typing import Any, BinaryIO

from acp_tray.events import NoticeMalformed, NoticeReceived
from acp_tray.files.private import make_dir, open_read, open_regular
from acp_tray.files.rotating import RotatingFile
from acp_tray.presentation.router import Decision

MAX_BYTES = 2 * 1024 * 1024
BACKUPS = 3
RAW_LIMIT = 4000
TEXT_LIMIT = 16_000  # characters of a title or description kept in the history
META_LIMIT = 64_000  # a `_meta` larger than this (as JSON) is not kept; the rest of the notice is
META_NOT_RECORDED = "(not recorded: too large or too deeply nested)"

# a record's id: where its line starts in its file, and that file's key (the CRC of its first line,
# which appends and a rotation's rename keep): `offset << KEY_BITS | key`, exact in JavaScript
# (under 2**53) in files under 16 MiB
KEY_BITS = 29
KEY_MASK = (1 << KEY_BITS) - 1
FIRST_LINE_LIMIT = 4096  # bytes of a file's first line that make its key

log = logging.getLogger(__name__)


_NOT_ROUTED: dict[str, Any] = {
    "route": None, "suppressed": None, "count": 1, "notified": False, "tray": False, "pushed": [],
}  # fmt: skip


def file_key(handle: BinaryIO) -> int:
    """The key of the history file open in `handle` (binary)."""
    handle.seek(0)
    return zlib.crc32(handle.readline(FIRST_LINE_LIMIT)) & KEY_MASK


def record_id(offset: int, key: int) -> int:
    """The id of the record whose line starts at `offset` in the file with the key `key`."""
    return offset << KEY_BITS | key


def _routing(decision: Decision | None, pushed: list[str]) -> dict[str, Any]:
    if decision is None:
        return {**_NOT_ROUTED, "pushed": []}
    return {
        "route": decision.route,
        "suppressed": decision.suppressed,
        "count": decision.count,
        "notified": decision.notify,
        "tray": decision.tray,
        "pushed": list(pushed),
    }


def record_of(
    event: NoticeReceived | NoticeMalformed, decision: Decision | None = None, pushed: list[str] | None = None
) -> dict[str, Any]:
    """The history record of an event: the agent's strings exactly as sent, what was decided, and
    the push targets it went to (`pushed`, by name).

    Every record has the same keys; a malformed one also has `field` and `raw`."""
    common = {
        "time": event.time.isoformat(timespec="milliseconds"),
        "agent": event.agent,
        "session_id": event.session_id,
        "source": event.source if isinstance(event, NoticeReceived) else "agent",
    }
    if isinstance(event, NoticeReceived):
        notice = event.notice
        return {
            **common,
            "kind": "notice",
            "severity": notice.severity,
            "title": notice.title,
            "description": notice.description,
            "meta": notice.meta,
            "reason": decision.reason or None if decision is not None else None,
            **_routing(decision, pushed or []),
        }
    try:
        raw = json.dumps(event.raw, default=repr)
    except (ValueError, RecursionError):  # too deeply nested to write back
        raw = "(not recorded: too deeply nested)"
    update = event.raw.get("update") if isinstance(event.raw, dict) else None
    fields = update if isinstance(update, dict) else {}
    return {
        **common,
        "kind": "malformed",
        "severity": fields.get("severity") if isinstance(fields.get("severity"), str) else None,
        "title": fields.get("title") if isinstance(fields.get("title"), str) else None,
        "description": None,
        "meta": None,
        "reason": event.reason,
        **_routing(None, []),
        "field": event.field,
        "update": fields.get("sessionUpdate") if isinstance(fields.get("sessionUpdate"), str) else None,
        "raw": raw if len(raw) <= RAW_LIMIT else raw[:RAW_LIMIT] + "…",
    }


class HistoryWriter:
    def __init__(self, path: Path, max_bytes: int = MAX_BYTES, backups: int = BACKUPS) -> None:
        self.path = path
        self._handler: RotatingFile | None = None
        self._key: int | None = None  # the key of the file written to (None: not known yet)
        self._last = -1  # where the last record written starts
        try:
            make_dir(path.parent)
            self._handler = RotatingFile(
                path, max_bytes=max_bytes, backups=backups, what="history file", report=log.warning
            )
        except OSError as exc:  # not writable, a directory, a symlink: notices are still presented
            reason = exc.strerror or str(exc)
            if getattr(exc, "errno", None) == errno.ELOOP:
                reason = "it is a symbolic link, which acp-tray does not follow"
            log.warning("cannot open the history file %s (%s); notices are shown but not recorded", path, reason)
            return

    def append(
        self, event: NoticeReceived | NoticeMalformed, decision: Decision | None = None, pushed: list[str] | None = None
    ) -> dict[str, Any]:
        """Write the event's record (when the file can be written); the record, as written, with its
        "id" when it was written (as the history's readers number it: state/history_pages.py)."""
        record = record_of(event, decision, pushed)
        for key in ("title", "description"):  # an agent must not wipe the rotation with one notice
            value = record.get(key)
            if isinstance(value, str) and len(value) > TEXT_LIMIT:
                record[key] = value[:TEXT_LIMIT] + "…"
        if self._handler is None:
            return record
        try:
            line = json.dumps(record, ensure_ascii=True, separators=(",", ":"))
        except (ValueError, RecursionError):  # `_meta` too deeply nested to write
            line = self._without_meta(record)
        # `_meta` is measured on its own only when it could be over the limit (its spaced JSON is at
        # most twice its compact form, which is part of `line`): one dump per record normally
        if record.get("meta") is not None and 2 * len(line) > META_LIMIT:
            try:
                too_big = len(json.dumps(record["meta"], ensure_ascii=True)) > META_LIMIT
            except (ValueError, RecursionError):
                too_big = True
            if too_big:
                line = self._without_meta(record)
        position = self._handler.write_line(line)
        if position is not None:
            self._number(record, position)
        return record

    def _number(self, record: dict[str, Any], position: int) -> None:
        """Give the record written at `position` its id."""
        if position <= self._last or self._key is None:  # a new file (rotated), or the first record
            try:
                with os.fdopen(open_regular(self.path, os.O_RDONLY), "rb") as handle:
                    self._key = file_key(handle)
            except OSError:
                self._key = None
        self._last = position
        if self._key is not None:
            record["id"] = record_id(position, self._key)

    @staticmethod
    def _without_meta(record: dict[str, Any]) -> str:
        record["meta"] = META_NOT_RECORDED
        return json.dumps(record, ensure_ascii=True, separators=(",", ":"))

    def close(self) -> None:
        if self._handler is not None:
            self._handler.close()


def history_files(path: Path, backups: int = BACKUPS) -> list[Path]:
    """The history file and its rotated copies, oldest first."""
    rotated = [path.with_name(f"{path.name}.{i}") for i in range(backups, 0, -1)]
    return [p for p in [*rotated, path] if p.exists()]


def parse_line(line: str) -> dict[str, Any] | str | None:
    """A history line's record; the line itself (stripped) when it is not one; None when blank."""
    line = line.strip()
    if not line:
        return None
    try:
        record = json.loads(line)
    except ValueError:
        return line
    return record if isinstance(record, dict) else line


def read_history(path: Path) -> Iterator[dict[str, Any] | str]:
    """Records oldest first; a line that is not a record is yielded as the raw string. A history
    file that is not a regular file (a directory, a named pipe) is an OSError saying so."""
    for file in history_files(path):
        with open_read(file) as handle:
            for line in handle:
                record = parse_line(line)
                if record is not None:
                    yield record
