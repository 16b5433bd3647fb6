"""What an agent says of a session's work besides its replies, as plain data: its subagents
(`subagent_update`: a child session under its parent, with a title, a description and a state
snapshot, patched field by field) and its own progress words (a retry, a wait for the network:
codex's `session_info_update._meta.codex.error`). Pure: no I/O; tolerant of agent input."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

TEXT_KEPT = 200  # characters of a child's title or description, or of a progress message, kept


class Unchanged:
    """The type of `UNCHANGED`: a patch field the update left out (as opposed to `null`, cleared)."""


UNCHANGED = Unchanged()


@dataclass(frozen=True, slots=True)
class SubagentChange:
    """A `subagent_update`: `session_id` is the child's. Each field is its new value, `None`
    (cleared), or `UNCHANGED`; `state` is the child's state snapshot (`running`, `requires_action`,
    `idle`, `unknown` or newer)."""

    session_id: str
    title: str | Unchanged | None = UNCHANGED
    description: str | Unchanged | None = UNCHANGED
    state: str | Unchanged | None = UNCHANGED


def _patch_text(update: dict[str, Any], key: str) -> str | Unchanged | None:
    if key not in update:
        return UNCHANGED
    value = update[key]
    return value.strip()[:TEXT_KEPT] or None if isinstance(value, str) else None  # a malformed value: cleared


def subagent_change(update: dict[str, Any]) -> SubagentChange | None:
    """The change a `subagent_update` makes (None when it names no child session)."""
    child = update.get("sessionId")
    if not isinstance(child, str) or not child:
        return None
    state: str | Unchanged | None = UNCHANGED
    if "state" in update:
        snapshot = update["state"]
        value = snapshot.get("state") if isinstance(snapshot, dict) else None
        state = value if isinstance(value, str) and value else None
    return SubagentChange(child, _patch_text(update, "title"), _patch_text(update, "description"), state)


_ATTEMPT = re.compile(r"^\s*(?P<what>[A-Za-z][A-Za-z ]*?)\s*(?:\.\.\.|…)?\s*\(?(?P<n>\d+)\s*/\s*(?P<of>\d+)\)?")


def progress_words(message: str) -> str:
    """An agent's retry message in a person's words: "Reconnecting... 3/5 (stream closed)" is
    "reconnecting, 3 of 5"; any other message is its first line, as sent (bounded)."""
    line = message.strip().splitlines()[0] if message.strip() else ""
    attempt = _ATTEMPT.match(line)
    if attempt is not None:
        return f"{attempt['what'].strip().lower()}, {attempt['n']} of {attempt['of']}"
    return line[:TEXT_KEPT]


def progress_of(update: dict[str, Any]) -> str | None:
    """The progress a `session_info_update` reports, in words: codex's retry (`_meta.codex.error`
    with `willRetry`), or None when it reports none."""
    meta = update.get("_meta")
    codex = meta.get("codex") if isinstance(meta, dict) else None
    error = codex.get("error") if isinstance(codex, dict) else None
    if not isinstance(error, dict) or error.get("willRetry") is not True:
        return None
    message = error.get("message")
    words = progress_words(message) if isinstance(message, str) else ""
    return words or "retrying"
