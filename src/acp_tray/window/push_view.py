"""The Preferences page's push targets, shaped for its Push section (pure): each target by name and
service in words (never its URL), which of them `[push] targets` picks, and the words of the
`[push]` choices."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from acp_tray.control import replies
from acp_tray.control.watch_events import WatchState

WHEN = {
    "away": "Only while I am away (idle or the screen locked)",
    "always": "Always",
    "never": "Never",
}
KINDS = {
    "error": "Error notices",
    "warning": "Warnings",
    "info": "Info notices",
    "other": "Other notices (agents' own kinds)",
    "approvals": "Approvals waiting for an answer",
    "turns": "Turns finished or failed",
    "agents": "Agents crashed or needing sign-in",
}
SERVICES = {  # an Apprise URL's scheme as a person knows the service; others: the scheme itself
    "ntfy": "ntfy",
    "ntfys": "ntfy",
    "pover": "Pushover",
    "gotify": "Gotify",
    "gotifys": "Gotify",
    "tgram": "Telegram",
    "signal": "Signal",
    "signals": "Signal",
    "matrix": "Matrix",
    "matrixs": "Matrix",
    "slack": "Slack",
    "discord": "Discord",
    "mailto": "e-mail",
    "mailtos": "e-mail",
    "json": "JSON webhook",
    "jsons": "JSON webhook",
}


@dataclass(frozen=True)
class Listing:
    """`push.list`'s rows (or the `watch` state's), or why there are none to show."""

    rows: list[replies.PushTargetRow] = field(default_factory=list)
    problem: str = ""
    answering: bool | None = None  # `[push] answers` as the file says it now (None: as the rows say it)


ANSWERS = {
    "on": "answered from the phone",
    "off": "can be answered from the phone (the switch above)",
    "one-way": "one-way: answered at the desk",
}


@dataclass(frozen=True)
class Target:
    name: str
    service: str  # in words
    added: bool  # False: `[push] targets` names it, but no target of that name was added
    answers: str = ""  # whether a push to it can be answered from the phone, in words


def listing(state: WatchState) -> Listing:
    """The push targets as the daemon's `watch` state holds them."""
    return Listing(rows=list(state.get("push", [])))


def chosen(values: dict[str, Any]) -> list[str]:
    """`[push] targets` among the page's values (a form's list of names)."""
    names = values.get("push.targets", [])
    return [str(name) for name in names] if isinstance(names, list) else []


def targets(listing: Listing, chosen: list[str]) -> list[Target]:
    """The targets added, then those `[push] targets` names that are not (kept, so that saving the
    page does not drop them)."""
    names = {row["name"] for row in listing.rows}
    added = [
        Target(
            row["name"], SERVICES.get(row["service"], row["service"]), True, ANSWERS[_answers(row, listing.answering)]
        )
        for row in listing.rows
    ]
    return added + [Target(name, "", False) for name in chosen if name not in names]


def _answers(row: replies.PushTargetRow, answering: bool | None) -> str:
    if answering is None or row["answers"] == "one-way":
        return row["answers"]
    return "on" if answering else "off"


def part(
    listing: Listing,
    chosen: list[str],
    *,
    notice: str = "",
    problem: str = "",
    invalid: str = "",
    name: str = "",
    waiting: str = "",
    pending: str = "",
) -> dict[str, Any]:
    """The context of the targets' part (`_push_targets.html`): `chosen` is `[push] targets` as the
    page shows it; `problem` why adding failed, `invalid` the field it is about ("name", "url"), `name`
    the name typed in "Add a target" (the URL typed never comes back); `waiting` what an add or a
    removal waits for (the OS keyring's dialog), `pending` the key its outcome is asked for by."""
    return {
        "push_waiting": waiting,
        "push_pending": pending,
        "push_targets": targets(listing, chosen),
        "push_chosen": chosen,
        "push_unavailable": listing.problem,
        "push_notice": notice,
        "push_problem": problem,
        "push_invalid": invalid,
        "push_name": name,
    }
