"""The Preferences page's shaping (pure): `prefs.get`'s reply (or `prefs.set`'s form) as the page's
groups. The settings' rules are the daemon's (its model, which also types the form's fields): here
only their words for people."""

from __future__ import annotations

import re
from dataclasses import replace
from typing import Any

from acp_tray.control import replies
from acp_tray.window import push_view

ROUTES = {  # the route's choices as a person says them
    "both": "Pop up and list",
    "notify": "Pop up only",
    "tray": "List only",
    "none": "Keep in history only",
}
PERMISSIONS = {"ask": "Ask me each time", "reject": "Reject every request", "allow": "Allow every request"}
PROTOCOLS = {"auto": "Automatic (2, else 1)", "1": "ACP 1", "2": "ACP 2"}
NOTIFIERS = {
    "auto": "Automatic",
    "freedesktop": "The desktop's notifications (D-Bus)",
    "plyer": "plyer",
    "console": "Terminal lines only",
}
AWAY_SOURCE = "Diagnostics names this machine's away source: with none, “only while I am away” never pushes."
DAYS = {"mon": "Mon", "tue": "Tue", "wed": "Wed", "thu": "Thu", "fri": "Fri", "sat": "Sat", "sun": "Sun"}


# how the file's checks name a setting: "`timeout` in [severity.warning]", "item 2 of `days` in [...]"
_SUBJECT = re.compile(r"(?:item (\d+) of )?`[^`]*` (?:in \[[^\]]*\]|at the top level):? ?")


def in_words(problem: str) -> str:
    """A problem as the file's checks say it ("`timeout` in [severity.warning] must be at least 0,
    not -5") as the page says it beside the field, whose label names the setting already
    ("Must be at least 0, not -5.")."""
    found = _SUBJECT.match(problem)
    if found is None or found.end() == len(problem):
        return problem
    rest = problem[found.end() :]
    text = (f"Choice {found.group(1)}: " if found.group(1) else "") + rest[0].upper() + rest[1:]
    return text if text.endswith((".", "?", "!")) else text + "."


def labelled(choices: list[str], words: dict[str, str]) -> list[tuple[str, str]]:
    """The daemon's choices for a setting, each with its words here, in the order the words are
    (a choice without words here: the choice itself, after them)."""
    known = [(choice, text) for choice, text in words.items() if choice in choices]
    return known + [(choice, choice) for choice in choices if choice not in words]


def agent_names(values: dict[str, Any]) -> list[str]:
    return sorted({key.split(".")[1] for key in values if key.startswith("agents.") and key.endswith(".permission")})


def _answering(reply: replies.PrefsFormReply) -> bool | None:
    """`[push] answers` as the file says it (what the targets' words follow)."""
    value = reply["values"].get("push.answers")
    return value if isinstance(value, bool) else None


def page(
    reply: replies.PrefsFormReply,
    values: dict[str, Any] | None = None,
    problems: dict[str, str] | None = None,
    *,
    push: push_view.Listing | None = None,
    **status: Any,
) -> dict[str, Any]:
    """The template's context: the values shown (the file's, or those the person sent back), the
    problems by setting, and those that belong to no field the page shows; `push`: the push targets."""
    shown = {**reply["values"], **(values or {})}
    fields = set(shown)
    problems = {key: in_words(text) if key in fields else text for key, text in (problems or {}).items()}
    return {
        "values": shown,
        "defaults": reply["defaults"],
        "choices": reply["choices"],
        "version": reply["version"],
        "path": reply["path"] or "",
        "file_problem": reply["problem"] or "",
        "problems": problems,
        "other_problems": [text for key, text in problems.items() if key not in fields],
        # the severity classes, in the order of DND's choices (which also hold "approvals")
        "severities": [s for s in reply["choices"].get("dnd.allow", []) if f"severity.{s}.route" in shown],
        "agents": agent_names(shown),
        "routes": ROUTES,
        "permissions": PERMISSIONS,
        "protocols": PROTOCOLS,
        "notifiers": NOTIFIERS,
        "days": DAYS,
        "push_when": push_view.WHEN,
        "push_kinds": push_view.KINDS,
        "push_source": AWAY_SOURCE,
        **push_view.part(replace(push or push_view.Listing(), answering=_answering(reply)), push_view.chosen(shown)),
        "labelled": labelled,
        "across_midnight": str(shown.get("dnd.quiet_hours.end", "")) <= str(shown.get("dnd.quiet_hours.start", "")),
        "saved": status.get("saved", ""),
        "stale": status.get("stale", False),
        "failed": status.get("failed", ""),
    }
