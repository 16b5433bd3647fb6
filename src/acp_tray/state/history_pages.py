"""The history newest first, a page at a time, over the file and its rotated copies, filtered by
agent, severity class, source and text: what the control API's `history` and `acp-tray history -n`
read. Bounded in memory: each file is read backwards in blocks, and a page holds only its records.

A record's id is its position, an int that stays the same while records are added and the files
rotate (state/history.py `record_id`: its line's offset in its file, and the file's key, which a
rename keeps); the `watch` stream's new records carry the same. Paging on from an id whose file
has been rotated away finds nothing.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, BinaryIO, Literal

from acp_tray.files.private import open_regular
from acp_tray.prefs.model import SeverityClass
from acp_tray.presentation.severity import severity_class
from acp_tray.protocol.notice import severity_kind
from acp_tray.state.history import KEY_BITS, KEY_MASK, file_key, history_files, parse_line, record_id

BLOCK = 64 * 1024  # bytes read at a time, backwards

Record = dict[str, Any] | str  # a record, or a line that is not one (as `acp-tray history --json` reads them)
Source = Literal["agent", "acp-tray"]


def severity_of(record: dict[str, Any]) -> SeverityClass | None:
    """The severity class of a record's severity (None: a dropped update that had none)."""
    severity = record.get("severity")
    return severity_class(severity_kind(severity)) if isinstance(severity, str) else None


@dataclass(frozen=True)
class HistoryFilter:
    """Which records a page shows; None: any. `text` is looked for, ignoring case, in the title,
    the description and the agent's name (in a line that is not a record: in the line)."""

    agent: str | None = None
    severity: SeverityClass | None = None
    source: Source | None = None
    text: str | None = None

    def matches(self, record: Record) -> bool:
        text = self.text.casefold() if self.text else None
        if isinstance(record, str):
            unfiltered = self.agent is None and self.severity is None and self.source is None
            return unfiltered and (text is None or text in record.casefold())
        if self.agent is not None and record.get("agent") != self.agent:
            return False
        if self.source is not None and record.get("source") != self.source:
            return False
        if self.severity is not None and severity_of(record) != self.severity:
            return False
        fields = (record.get("title"), record.get("description"), record.get("agent"))
        return text is None or any(isinstance(field, str) and text in field.casefold() for field in fields)


@dataclass(frozen=True)
class HistoryPage:
    records: list[dict[str, Any]]  # newest first, each with its "id"; a line that is not a record: "unreadable"
    next: int | None  # the id to page on from (older records), or None: there are no more


def history_page(path: Path, shown: HistoryFilter, before: int | None = None, limit: int = 50) -> HistoryPage:
    """Up to `limit` records that `shown` lets through, newest first, older than the record with the
    id `before` (when given)."""
    found: list[dict[str, Any]] = []
    for position, record in newest_first(path, before):
        if not shown.matches(record):
            continue
        if len(found) == limit:  # one more exists: the page has a next
            return HistoryPage(found, found[-1]["id"])
        found.append({**record, "id": position} if isinstance(record, dict) else {"id": position, "unreadable": record})
    return HistoryPage(found, None)


def newest_first(path: Path, before: int | None = None) -> Iterator[tuple[int, Record]]:
    """Every record of the history at `path` (the file and its rotated copies) with its id, newest
    first; after `before` (an id), only those older than it. A file that is not a regular file is
    an OSError saying so."""
    after = None if before is None else (before & KEY_MASK, before >> KEY_BITS)
    seen: set[int] = set()  # a file renamed by a rotation while this reads is read once
    for file in reversed(history_files(path)):
        with os.fdopen(open_regular(file, os.O_RDONLY), "rb") as handle:
            key = file_key(handle)
            if key in seen:
                continue
            seen.add(key)
            end = os.fstat(handle.fileno()).st_size
            if after is not None:
                if key != after[0]:
                    continue  # a newer file than the one the page goes on in
                end, after = min(after[1], end), None
            for offset, line in _lines_before(handle, end):
                record = parse_line(line.decode("utf-8", errors="replace"))
                if record is not None:
                    yield record_id(offset, key), record


def _lines_before(handle: BinaryIO, end: int) -> Iterator[tuple[int, bytes]]:
    """The lines before offset `end`, last first, each with its offset (a line longer than a block
    is gathered whole: bounded by the longest record)."""
    position, rest = end, b""  # rest: the end of a line that starts in an earlier block
    while position > 0:
        step = min(BLOCK, position)
        position -= step
        handle.seek(position)
        chunk = handle.read(step) + rest
        lines = chunk.split(b"\n")
        rest = lines.pop(0) if position > 0 else b""
        line_end = position + len(chunk)
        for line in reversed(lines):
            line_end -= len(line)
            yield line_end, line
            line_end -= 1  # its newline
