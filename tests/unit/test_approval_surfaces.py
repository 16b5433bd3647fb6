"""Pending approvals on the surfaces: the tray menu, badge and tooltip, and a notification's actions."""

from __future__ import annotations

import re
from datetime import datetime
from typing import Any
from zoneinfo import ZoneInfo

import pytest

from acp_tray.control import replies
from acp_tray.events import AgentState, PermissionOption
from acp_tray.notifiers.bus import Reply, Signal
from acp_tray.notifiers.bus.dbus_fast_link import DbusFastLink
from acp_tray.notifiers.content import ACTION_LABEL_LIMIT, MAX_ACTIONS, Urgency, notification_of
from acp_tray.notifiers.freedesktop import INTERFACE, OBJECT_PATH, FreedesktopBackend, wire_actions
from acp_tray.presentation.options import option_label
from acp_tray.presentation.recent import RecentItem
from acp_tray.protocol.notice import severity_kind
from acp_tray.tray.menu import MAX_APPROVALS, MENU_TEXT_LIMIT, SEPARATOR, Entry, menu_of
from acp_tray.tray.snapshot import AgentRow, ApprovalRow, TraySnapshot, badge_of, tooltip_of
from tests.support.presentations import make_presentation

T = datetime(2026, 11, 29, 13, 0, tzinfo=ZoneInfo("Europe/Berlin"))
OPTIONS = (
    PermissionOption("allow-once", "Allow once", "allow_once"),
    PermissionOption("allow-always", "Always allow", "allow_always"),
    PermissionOption("reject-once", "Reject", "reject_once"),
    PermissionOption("reject-always", "Never", "reject_always"),
    PermissionOption("later", "Ask me later", "defer_to_human"),  # a kind from the future
)
HOSTILE = "\x1b[2J\u202eevil\u202c\u2066 line\nbreak\ttab\x00\x7f\u200f"
# anything that may not reach a menu label: controls (C0, DEL, C1), bidi controls, line breaks
UNSAFE = re.compile("[\x00-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069\ufeff\u2028\u2029]")


def status_part(snapshot: TraySnapshot) -> tuple[Entry, ...]:
    """The menu after its first entry, "Open acp-tray…", and the line under it: the status and approvals."""
    menu = menu_of(snapshot)
    assert (menu[0].label, menu[1]) == ("Open acp-tray…", SEPARATOR)
    return menu[2:]


def item(group: int, severity: str, unread: bool = True) -> RecentItem:
    kind = severity_kind(severity)
    return RecentItem(group, "claude", severity, kind, f"title {group}", None, 1, T, unread, "agent")


def approval(approval_id: str = "a1", agent: str = "claude", title: str = "Run `make test`", **kw: Any) -> ApprovalRow:
    return ApprovalRow(approval_id, agent, title, kw.get("options", OPTIONS))


def snapshot(*approvals: ApprovalRow, **kw: Any) -> TraySnapshot:
    return TraySnapshot(agents=(AgentRow("claude", AgentState.CONNECTED),), approvals=approvals, **kw)


def labels(entries: tuple[Entry, ...]) -> list[str]:
    return [entry.label for entry in entries]


# --- the tray menu ---------------------------------------------------------------------------


def test_no_approvals_no_entry() -> None:
    menu = status_part(snapshot())
    assert not any(entry.label.startswith("Needs you") for entry in menu)
    assert labels(menu[:3]) == ["1/1 agents connected", "Do not disturb: off", "-"]


def test_one_approval_is_a_submenu_of_its_options_right_after_the_header() -> None:
    menu = status_part(snapshot(approval()))
    assert labels(menu[:4]) == ["1/1 agents connected", "Do not disturb: off", "Needs you (1)", "-"]
    assert menu[4].label.startswith("Recent")
    needs = menu[2]
    assert needs.enabled and needs.action is None
    assert labels(needs.children) == ["claude: Run `make test`"]
    options = needs.children[0].children
    assert [(entry.label, entry.action) for entry in options] == [
        ("✔ Allow once", "approval:a1:allow-once"),  # the name only repeats the kind: said once
        ("✔ Allow always: Always allow", "approval:a1:allow-always"),
        ("✖ Reject", "approval:a1:reject-once"),
        ("✖ Reject always: Never", "approval:a1:reject-always"),
        ("? defer_to_human: Ask me later", "approval:a1:later"),  # unknown kind: named as sent, still answerable
    ]
    assert all(entry.checked is None and not entry.children for entry in options)


def test_two_approvals_oldest_first_each_with_its_own_ids() -> None:
    older = approval("p-1", "claude", "Edit src/main.py")
    newer = approval("p-2", "gemini", "Fetch https://example.com", options=OPTIONS[2:3] + OPTIONS[:1])
    needs = status_part(snapshot(older, newer))[2]
    assert needs.label == "Needs you (2)"
    assert labels(needs.children) == ["claude: Edit src/main.py", "gemini: Fetch https://example.com"]
    assert [e.action for e in needs.children[0].children] == [f"approval:p-1:{o.option_id}" for o in OPTIONS]
    assert [(e.label, e.action) for e in needs.children[1].children] == [
        ("✖ Reject", "approval:p-2:reject-once"),
        ("✔ Allow once", "approval:p-2:allow-once"),
    ]
    # the rest of the menu is as it was
    assert labels(status_part(snapshot(older, newer))[3:]) == labels(status_part(snapshot())[2:])


def test_hostile_approval_text_stays_one_bounded_clean_line() -> None:
    options = (
        PermissionOption("o1", HOSTILE + "x" * 500, "allow_once"),
        PermissionOption("o2", "\u202e\n\t\x1b", "reject_once"),  # nothing left after sanitising
    )
    row = approval("h", "bad\tagent\u202e", HOSTILE + "t" * 1000, options=options)
    long_agent = approval("l", "n" * 5000 + HOSTILE, "title")
    needs = status_part(snapshot(row, long_agent))[2]
    request = needs.children[0]
    shown = [request.label, needs.children[1].label, *labels(request.children)]
    for label in shown:
        assert not UNSAFE.search(label), repr(label)
        assert len(label) <= MENU_TEXT_LIMIT + 2  # the kind, then the name, bounded
    assert request.label.startswith("bad agent: [2Jevil line break tabttt") and request.label.endswith("…")
    assert needs.children[1].label.startswith("nnnn") and needs.children[1].label.endswith("…")
    assert request.children[0].label.startswith("✔ Allow once: [2Jevil line break tab") and request.children[
        0
    ].label.endswith("…")
    assert request.children[1].label == "✖ Reject"  # unnamed: the kind says it all
    assert [e.action for e in request.children] == ["approval:h:o1", "approval:h:o2"]


def test_many_approvals_are_bounded_and_counted() -> None:
    rows = [approval(f"id{n}", title=f"request {n}") for n in range(MAX_APPROVALS + 5)]
    needs = status_part(snapshot(*rows))[2]
    assert needs.label == f"Needs you ({MAX_APPROVALS + 5})"
    assert len(needs.children) == MAX_APPROVALS + 1
    assert needs.children[0].label == "claude: request 0"  # oldest first
    assert (needs.children[-1].label, needs.children[-1].action) == ("… and 5 more", None)


def test_an_approval_without_options_says_so_and_offers_nothing() -> None:
    needs = status_part(snapshot(approval(options=())))[2]
    assert [(e.label, e.action) for e in needs.children[0].children] == [("No options offered", None)]


# --- badge and tooltip -----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("unread", "badge"),
    [
        ([], "warning"),
        ([item(1, "info")], "warning"),
        ([item(1, "_acme.x")], "warning"),
        ([item(1, "warning")], "warning"),
        ([item(1, "error")], "error"),
        ([item(1, "error", unread=False)], "warning"),
    ],
)
def test_a_pending_approval_makes_the_badge_at_least_warning(unread: list[Any], badge: str) -> None:
    assert badge_of(snapshot(approval(), recent=tuple(unread))) == badge


def test_without_approvals_the_badge_is_as_before() -> None:
    assert badge_of(snapshot()) == "none"
    assert badge_of(snapshot(recent=(item(1, "info"),))) == "info"


def test_tooltip_counts_what_awaits_approval() -> None:
    assert tooltip_of(snapshot()) == "acp-tray · nothing unread · 1/1 agent connected"
    assert tooltip_of(snapshot(approval())) == "acp-tray · 1 awaiting approval · nothing unread · 1/1 agent connected"
    two = snapshot(approval("a"), approval("b"), recent=(item(1, "info"),))
    assert tooltip_of(two) == "acp-tray · 2 awaiting approval · 1 unread · 1/1 agent connected"


# --- the notification's actions --------------------------------------------------------------


def test_notification_carries_sanitised_bounded_action_labels() -> None:
    actions = tuple((f"approval:n:o{n}", f"Option {n}") for n in range(MAX_ACTIONS + 3))
    actions = (("approval:n:x", HOSTILE + "y" * 300), ("approval:n:e", "\u202e\n"), *actions)
    n = notification_of(make_presentation(5, "Run it?", "warning", actions=actions))
    assert n.urgency is Urgency.NORMAL and len(n.actions) == MAX_ACTIONS
    assert [action_id for action_id, _ in n.actions] == [action_id for action_id, _ in actions[:MAX_ACTIONS]]
    first, empty = n.actions[0][1], n.actions[1][1]
    assert not UNSAFE.search(first) and len(first) <= ACTION_LABEL_LIMIT and first.endswith("…")
    assert empty == "(unnamed)"
    assert notification_of(make_presentation(6, "plain")).actions == ()


def test_wire_actions_default_first_ids_verbatim_when_plain_else_stand_ins() -> None:
    wire, offered = wire_actions(
        (
            ("approval:7:allow_once", "Allow"),
            ("approval:7:odd]id\n", "Odd"),  # would break dunst's "[ID,KEY]" line: a stand-in goes out
            ("default", "Sneaky"),  # may not pose as the click
            ("approval:7:allow_once", "Twice"),  # offered once
            ("approval:7:\ud800", "Surrogate"),  # cannot even be sent on D-Bus as is
        )
    )
    assert wire == [
        "default",
        "Open",
        "approval:7:allow_once",
        "Allow",
        "acp-tray-action-0",
        "Odd",
        "acp-tray-action-1",
        "Sneaky",
        "acp-tray-action-2",
        "Surrogate",
    ]
    assert offered == {
        "approval:7:allow_once": "approval:7:allow_once",
        "acp-tray-action-0": "approval:7:odd]id\n",
        "acp-tray-action-1": "default",
        "acp-tray-action-2": "approval:7:\ud800",
    }
    wire, offered = wire_actions((("acp-tray-action-0", "A"), ("x\ty", "B")))
    assert wire[2::2] == ["acp-tray-action-0", "acp-tray-action-1"] and offered["acp-tray-action-1"] == "x\ty"
    assert wire_actions(()) == (["default", "Open"], {})


class RecordingBackend(FreedesktopBackend):
    """The backend with its bus calls answered here: what it sends, and signals fed by hand."""

    SERVER = ":1.7"

    def __init__(self, capabilities: frozenset[str]) -> None:
        self.seen: list[tuple[int, str]] = []
        super().__init__(lambda group, what: self.seen.append((group, what)))
        self.capabilities = capabilities
        self.sent: list[list[Any]] = []
        self._next_id = 40

    def _connected(self) -> DbusFastLink:
        return DbusFastLink(None)  # never connected: its variants only

    async def _request(self, *call: Any) -> Reply:
        self.sent.append(call[-1])
        self._next_id += 1
        return Reply(self.SERVER, [self._next_id])

    def signal(self, member: str, signature: str, body: list[Any], sender: str = SERVER) -> None:
        self._on_signal(Signal(sender, OBJECT_PATH, INTERFACE, member, signature, body))


APPROVE = (("approval:9:allow_once", "Allow once"), ("approval:9:reject_once", "Reject"))


async def test_signals_map_to_offered_actions_only_and_only_from_the_server() -> None:
    backend = RecordingBackend(frozenset({"actions", "body"}))
    await backend.notify(notification_of(make_presentation(3, "Run it?", "warning", actions=APPROVE)))
    server_id = 41
    assert backend.sent[-1][5] == ["default", "Open", *APPROVE[0], *APPROVE[1]]
    backend.signal("ActionInvoked", "us", [server_id, "approval:9:reject_once"])
    backend.signal("ActionInvoked", "us", [server_id, "default"])
    backend.signal("ActionInvoked", "us", [server_id, "approval:9:not_offered"])  # ignored
    backend.signal("ActionInvoked", "us", [server_id, "approval:9:allow_once"], sender=":1.66")  # not the server
    backend.signal("NotificationClosed", "uu", [server_id, 2], sender=":1.66")  # not the server
    backend.signal("ActionInvoked", "us", [999, "approval:9:allow_once"])  # not ours
    backend.signal("NotificationClosed", "uu", [server_id, 1])
    backend.signal("NotificationClosed", "uu", [server_id, 2])
    assert backend.seen == [(3, "approval:9:reject_once"), (3, "clicked"), (3, "expired"), (3, "closed")]


async def test_an_update_in_place_offers_only_its_own_actions() -> None:
    backend = RecordingBackend(frozenset({"actions"}))
    await backend.notify(notification_of(make_presentation(3, "Run it?", "warning", actions=APPROVE)))
    await backend.notify(notification_of(make_presentation(3, "Settled", "info")))
    assert backend.sent[-1][1] == 41 and backend.sent[-1][5] == ["default", "Open"]  # replaces_id
    backend.signal("ActionInvoked", "us", [42, "approval:9:allow_once"])
    backend.signal("ActionInvoked", "us", [41, "approval:9:allow_once"])  # the old id is not a way back in
    assert backend.seen == []


async def test_a_server_without_actions_gets_none_and_no_key_is_honoured() -> None:
    backend = RecordingBackend(frozenset({"body"}))
    await backend.notify(notification_of(make_presentation(4, "Run it?", "warning", actions=APPROVE)))
    assert backend.sent[-1][5] == []
    backend.signal("ActionInvoked", "us", [41, "approval:9:allow_once"])
    assert backend.seen == []


async def test_a_stand_in_key_comes_back_as_the_action_id() -> None:
    backend = RecordingBackend(frozenset({"actions"}))
    odd = (("approval:1:a]b", "Odd"),)
    await backend.notify(notification_of(make_presentation(8, "Run it?", "warning", actions=odd)))
    backend.signal("ActionInvoked", "us", [41, "acp-tray-action-0"])
    backend.signal("ActionInvoked", "us", [41, "approval:1:a]b"])  # the raw id was never offered
    assert backend.seen == [(8, "approval:1:a]b")]


def test_the_menu_kind_marks_follow_the_kind_prefix() -> None:
    rows = [
        PermissionOption(f"o{n}", "x", kind) for n, kind in enumerate(("allow_for_session", "reject_x", "", "ALLOW"))
    ]
    needs = status_part(snapshot(approval(options=tuple(rows))))[2]
    assert labels(needs.children[0].children) == [
        "✔ allow_for_session: x",
        "✖ reject_x: x",
        "? unknown kind: x",
        "? ALLOW: x",
    ]


# --- the kind on every surface (security review item 8) --------------------------------------

DECEPTIVE = (
    PermissionOption("yes-forever", "Deny", "allow_always"),  # a name that says the opposite of its kind
    PermissionOption("no", "Allow", "reject_once"),
)


def test_a_label_never_contradicts_its_kind_on_any_surface() -> None:
    from acp_tray.cli.approvals import approval_lines
    from acp_tray.events import PermissionAsked
    from acp_tray.presentation.own_notices import own_notice

    expected = ["✔ Allow always: Deny", "✖ Reject: Allow"]
    own = own_notice(PermissionAsked("claude", "s", "7", "Run rm -rf build", DECEPTIVE, 60.0))
    assert own is not None
    buttons = notification_of(make_presentation(actions=own.actions)).actions
    assert [label for _, label in buttons] == expected
    menu = status_part(snapshot(approval("7", options=DECEPTIVE)))
    assert labels(menu[2].children[0].children) == expected
    rows: list[replies.ApprovalRow] = [{"id": "7", "agent": "claude", "session_id": "s", "title": "t", "details": [],
             "options": [{"id": o.option_id, "name": o.name, "kind": o.kind} for o in DECEPTIVE],
             "subagent": ""}]  # fmt: skip
    assert approval_lines(rows) == [
        "  [7] claude: t  — options: yes-forever = ✔ Allow always: Deny, no = ✖ Reject: Allow"
    ]


def test_the_kind_survives_the_button_length_limit() -> None:
    label = option_label("Deny " + "x" * 200, "allow_always", 64)
    buttons = notification_of(make_presentation(actions=(("approval:1:o", label),))).actions
    assert buttons[0][1].startswith("✔ Allow always: Deny") and len(buttons[0][1]) <= ACTION_LABEL_LIMIT
