"""`acp-tray history [--json] [-n N]`: the notices received so far, from the local history file."""

from __future__ import annotations

import argparse
import itertools
import json
from datetime import datetime
from typing import Any

from acp_tray.cli.output import EXIT_FAILED, fail
from acp_tray.events import now
from acp_tray.files import paths
from acp_tray.logs.text import DESCRIPTION_LIMIT, NAME_LIMIT, plain_line
from acp_tray.notifiers.console import notice_line
from acp_tray.presentation.when import dated_label
from acp_tray.protocol.notice import severity_kind
from acp_tray.state.history import read_history
from acp_tray.state.history_pages import newest_first


def _pushed(targets: object) -> list[str]:
    """ "pushed: phone, desk" for a record pushed to those targets (older records have no `pushed`)."""
    if not isinstance(targets, list) or not targets:
        return []
    return [f"pushed: {plain_line(', '.join(str(t) for t in targets), DESCRIPTION_LIMIT)}"]


def history_line(record: dict[str, Any], seen: datetime) -> str:
    """One record as a line, its time said as seen at `seen` (with the day when it was not today)."""
    try:
        time = dated_label(datetime.fromisoformat(str(record["time"])), seen, seconds=True)
        agent = str(record["agent"])
    except (KeyError, ValueError):
        return f"(unreadable history record) {json.dumps(record)[:200]}"
    if record.get("kind") == "malformed":
        reason = plain_line(f"{record.get('field')}: {record.get('reason')}", DESCRIPTION_LIMIT)
        what = plain_line(str(record.get("update") or "notice"), NAME_LIMIT)  # older records: notices only
        return f"{time}  {plain_line(agent, NAME_LIMIT)}  dropped  malformed {what} ({reason})"
    severity = str(record.get("severity"))
    notes = [f"×{record['count']}"] if isinstance(record.get("count"), int) and record["count"] > 1 else []
    why = record.get("reason") if isinstance(record.get("reason"), str) else None
    if record.get("suppressed"):
        notes.append(f"suppressed: {record['suppressed']}")
    elif record.get("route") and not why:  # older records: no reason (which names the route)
        notes.append(f"route: {record['route']}")
    if why:
        notes.append(f"why: {plain_line(why, DESCRIPTION_LIMIT)}")
    notes += _pushed(record.get("pushed"))
    description = record.get("description")
    return notice_line(
        time,
        agent,
        severity,
        severity_kind(severity),
        str(record.get("title")),
        description if isinstance(description, str) else None,
        suffix=" · ".join(notes),
    )


def cmd_history(args: argparse.Namespace) -> int:
    path = paths.history_file()
    try:
        if args.limit is None:
            records = list(read_history(path))
        else:  # the newest N, read from the end (oldest first, as always)
            records = [record for _, record in itertools.islice(newest_first(path), args.limit)][::-1]
    except OSError as exc:
        return fail(f"cannot read the history: {exc.filename}: {exc.strerror or exc}", EXIT_FAILED)
    seen = now()
    for record in records:
        if args.json:
            # ASCII escapes: control and bidi characters from an agent never reach the terminal as is
            print(json.dumps(record if isinstance(record, dict) else {"unreadable": record}, ensure_ascii=True))
        elif isinstance(record, dict):
            print(history_line(record, seen))
        else:
            print(f"(unreadable history line) {record[:200]!r}")
    return 0
