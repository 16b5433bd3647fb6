"""What a session is doing, in a person's words (pure): a subagent and its state ("Child check
(general-purpose): waits for you"), a silence ("no word from the agent for 2 min"). The CLI, the
window and the tray say it the same way."""

from __future__ import annotations

from datetime import datetime, timedelta

from acp_tray.control.replies import SessionRow
from acp_tray.logs.text import NAME_LIMIT, plain_line

STATE_WORDS = {
    "running": "working",
    "requires_action": "waits for you",
    "idle": "idle",
    "unknown": "state unknown",
    "": "started",
}


def subagent_words(title: str, kind: str, state: str, needs_you: bool) -> str:
    """A subagent in one line: its title, its kind in brackets, what it does."""
    name = plain_line(title or kind or "a subagent", NAME_LIMIT)
    role = f" ({plain_line(kind, NAME_LIMIT)})" if kind and title else ""
    words = "waits for you" if needs_you else STATE_WORDS.get(state, plain_line(state, NAME_LIMIT))
    return f"{name}{role}: {words}"


def silence_words(since: datetime, now: datetime) -> str:
    """ "no word from the agent for 2 min" (under two minutes, in seconds)."""
    seconds = max(0, int((now - since) / timedelta(seconds=1)))
    span = f"{seconds} s" if seconds < 120 else f"{seconds // 60} min"
    return f"no word from the agent for {span}"


def silence_since(iso: str | None, now: datetime) -> str:
    """`silence_words` for a reply's `silent_since` ("" : none, or not a time)."""
    if not iso:
        return ""
    try:
        return silence_words(datetime.fromisoformat(iso), now)
    except (TypeError, ValueError):
        return ""


def session_doing(row: SessionRow, now: datetime) -> list[str]:
    """A session row's activity, a phrase each: waits for you, its progress, a silence, each subagent."""
    said = ["waits for you"] if row["needs_you"] else []
    if row["progress"]:
        said.append(plain_line(row["progress"], NAME_LIMIT))
    silence = silence_since(row["silent_since"], now)
    if silence:
        said.append(silence)
    said += [
        "› " + subagent_words(child["title"], child["kind"], child["state"], child["needs_you"])
        for child in row["subagents"]
    ]
    return said
