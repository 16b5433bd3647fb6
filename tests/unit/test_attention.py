"""Approvals that read first, and notices that reach the person: the request before the commands
(which a notification with buttons leaves out), what a tool call touches, `[dnd] allow =
["approvals"]`, and answers to what the person did shown whatever the routes and DND say."""

from __future__ import annotations

from datetime import datetime
from typing import Any
from zoneinfo import ZoneInfo

from acp_tray.events import NoticeReceived, PermissionAsked, PermissionOption, ToolCallScope
from acp_tray.notifiers.content import notification_of
from acp_tray.prefs.form import choices
from acp_tray.prefs.model import Preferences
from acp_tray.presentation.own_notices import OwnNotice, own_notice
from acp_tray.presentation.recent import Recent
from acp_tray.presentation.router import Presentation, Router
from acp_tray.protocol.notice import Notice
from acp_tray.protocol.session import parse_permission_request
from tests.support.clock import FakeClock
from tests.support.presentations import make_presentation

START = datetime(2026, 11, 27, 15, 0, tzinfo=ZoneInfo("Europe/Berlin"))
OPTIONS = (
    PermissionOption("allow", "Allow once", "allow_once"),
    PermissionOption("reject", "Reject", "reject_once"),
)
RUN = ToolCallScope("execute", ("/home/me/project",), "rm -rf build")


def asked(scope: ToolCallScope = RUN, title: str = "Clean the build") -> OwnNotice:
    own = own_notice(PermissionAsked("claude", "s1", "7", title, OPTIONS, 300.0, touches=scope))
    assert own is not None
    return own


def shown(own: OwnNotice, group: int = 1) -> Presentation:
    """The presentation the router makes of it (route both, no DND)."""
    router = Router(Preferences(), FakeClock(START))
    event = NoticeReceived(own.agent, own.session_id, own.notice, actions=own.actions, commands=own.commands)
    _, presentation = router.route(event)
    assert presentation is not None
    return presentation


# the wording ------------------------------------------------------------------------------------


def test_an_approval_reads_as_the_request_first_with_what_it_touches_and_the_commands_last() -> None:
    own = asked()
    lines = (own.notice.description or "").splitlines()
    assert lines == [
        "claude wants to: Clean the build",
        "Runs: rm -rf build",
        "Touches: /home/me/project",
        "Kind: execute",
        "No answer in 5 min: cancelled.",
        "acp-tray approve 7 · acp-tray deny 7",
    ]
    assert own.commands == lines[-1] and own.attention == "approval"


def test_a_request_that_names_nothing_it_touches_says_only_what_it_wants() -> None:
    lines = (asked(ToolCallScope(), "Delete the build/ folder").notice.description or "").splitlines()
    assert lines[0] == "claude wants to: Delete the build/ folder"
    assert not any(line.startswith(("Runs:", "Touches:", "Kind:")) for line in lines)


def test_with_buttons_the_notification_leaves_the_commands_out_and_keeps_the_request() -> None:
    notification = notification_of(shown(asked()))
    assert notification.actions  # the buttons answer it
    assert notification.body_with_buttons is not None
    assert "acp-tray approve" not in notification.body_with_buttons
    assert notification.body_with_buttons.startswith("claude wants to: Clean the build\nRuns: rm -rf build")
    # a server without buttons, and every list (tray, history, console), keep the commands
    assert notification.body.endswith("acp-tray approve 7 · acp-tray deny 7")


def test_without_buttons_the_commands_stay_even_after_a_very_long_request() -> None:
    long = ToolCallScope("execute", tuple(f"/p/{i}" * 40 for i in range(10)), "x" * 5000)
    notification = notification_of(shown(asked(long, "T" * 5000)))
    assert notification.body.endswith("acp-tray approve 7 · acp-tray deny 7")
    plain = notification_of(make_presentation(description="a\nb", commands="b"))  # no buttons: nothing left out
    assert plain.body_with_buttons is None and plain.body == "a\nb"


def test_what_a_v1_tool_call_touches_is_read_from_its_kind_locations_diffs_and_raw_input() -> None:
    request = parse_permission_request(
        {
            "sessionId": "s",
            "toolCall": {
                "toolCallId": "t1",
                "title": "Run the tests",
                "kind": "execute",
                "locations": [{"path": "/src/a.py", "line": 3}, {"path": 7}, "junk"],
                "content": [{"type": "diff", "path": "/src/b.py"}, {"type": "content", "path": "/no"}],
                "rawInput": {"command": ["pytest", "-k", "a b"]},
            },
            "options": [],
        }
    )
    assert request.scope == ToolCallScope("execute", ("/src/a.py", "/src/b.py"), "pytest -k 'a b'")
    assert parse_permission_request({"sessionId": "s", "title": "v2", "options": []}).scope == ToolCallScope()


# [dnd] allow = ["approvals"] --------------------------------------------------------------------


def routed(allow: list[str], event: NoticeReceived) -> tuple[Any, Presentation | None]:
    prefs = Preferences.model_validate({"dnd": {"enabled": True, "allow": allow}})
    return Router(prefs, FakeClock(START)).route(event)


def approval_event() -> NoticeReceived:
    own = asked()
    return NoticeReceived(own.agent, "s1", own.notice, actions=own.actions, commands=own.commands, attention="approval")


def test_approvals_in_dnd_allow_let_an_approval_through_and_nothing_else() -> None:
    decision, presentation = routed(["approvals"], approval_event())
    assert decision.suppressed is None and presentation is not None and presentation.notify
    # another warning is still held back
    decision, presentation = routed(["approvals"], NoticeReceived("bot", "s", Notice("warning", "Disk full")))
    assert decision.suppressed == "dnd" and presentation is not None and not presentation.notify


def test_without_it_an_approval_is_held_back_and_the_history_says_why() -> None:
    decision, presentation = routed([], approval_event())
    assert decision.suppressed == "dnd" and presentation is not None and presentation.tray
    assert 'nor "approvals"' in decision.reason


def test_the_preferences_form_offers_approvals_as_a_dnd_allow_choice() -> None:
    assert choices(["dnd.allow"])["dnd.allow"] == ["info", "warning", "error", "other", "approvals"]


# answers to what the person did ------------------------------------------------------------------


def answer(severity: str = "info", title: str = "Preferences applied") -> NoticeReceived:
    return NoticeReceived("acp-tray", "", Notice(severity, title), source="acp-tray", attention="answer")


def test_an_answer_is_shown_whatever_the_route_and_dnd_say() -> None:
    prefs = Preferences.model_validate(
        {"severity": {"info": {"route": "none"}, "error": {"route": "tray"}}, "dnd": {"enabled": True}}
    )
    router = Router(prefs, FakeClock(START))
    for event in (answer(), answer("error", "Preferences not applied")):
        decision, presentation = router.route(event)
        assert presentation is not None and (presentation.notify, presentation.tray) == (True, True)
        assert decision.suppressed is None and "the answer to what you did" in decision.reason
    # the same notice, not an answer, follows the route
    _, presentation = router.route(NoticeReceived("acp-tray", "", Notice("info", "x"), source="acp-tray"))
    assert presentation is None


def test_an_answer_that_is_only_news_is_brief() -> None:
    prefs = Preferences.model_validate({"severity": {"info": {"timeout": 0}}})
    _, presentation = Router(prefs, FakeClock(START)).route(answer())
    assert presentation is not None and 0 < presentation.timeout <= 5


def test_answers_are_not_held_by_the_rate_limit() -> None:
    prefs = Preferences.model_validate({"rate_limit": {"burst": 1, "per": 3600}, "coalesce": {"window": 0}})
    router = Router(prefs, FakeClock(START))
    results = [router.route(answer(title=f"answer {i}"))[1] for i in range(5)]
    assert all(p is not None and p.notify for p in results)


def test_recent_items_can_be_taken_back() -> None:
    recent = Recent()
    for group in (1, 2, 3):
        recent.add(make_presentation(group))
    assert recent.remove([1, 3, 99]) and [item.group for item in recent.items()] == [2]
    assert not recent.remove([1])


def test_the_preferences_page_offers_approvals_for_dnd_but_routes_only_severities() -> None:
    from acp_tray.prefs.form import form_values
    from acp_tray.window.prefs_view import page

    values = form_values(Preferences())
    reply: Any = {"values": values, "defaults": values, "choices": choices(list(values)), "version": "v",
                  "path": "/p", "problem": None}  # fmt: skip
    context = page(reply)
    assert "approvals" in context["choices"]["dnd.allow"]
    assert context["severities"] == ["info", "warning", "error", "other"]


def test_a_save_that_only_switched_dnd_is_not_announced_as_applied() -> None:
    from datetime import timedelta

    from acp_tray.app.reloader import only_dnd_switched

    before = Preferences()
    switched = Preferences.model_validate({"dnd": {"enabled": True, "until": START + timedelta(hours=1)}})
    assert only_dnd_switched(before, switched)  # `acp-tray dnd for 1h`: its own output says so
    assert not only_dnd_switched(before, before)  # a save that changed no setting is still answered
    assert not only_dnd_switched(before, Preferences.model_validate({"dnd": {"enabled": True, "allow": ["error"]}}))
    assert not only_dnd_switched(before, Preferences.model_validate({"severity": {"info": {"route": "tray"}}}))


class Watched(dict[str, Any]):
    """A location that counts how often it is read."""

    reads = 0

    def get(self, key: str, default: Any = None) -> Any:
        Watched.reads += 1
        return super().get(key, default)


def test_a_tool_call_naming_a_hundred_thousand_paths_is_read_no_further_than_what_is_shown() -> None:
    """An agent line may be megabytes of locations: only the paths shown are looked at (reading
    them all, each checked against those kept, held the daemon's loop for minutes)."""
    shown = [{"path": f"/src/{i}.py"} for i in range(10)]
    rest = [Watched(path=f"/more/{i}") for i in range(100_000)]
    request = parse_permission_request(
        {
            "sessionId": "s1",
            "toolCall": {"toolCallId": "t", "title": "Edit everything", "locations": [*shown, *rest]},
            "options": [{"optionId": "ok", "name": "Allow", "kind": "allow_once"}],
        }
    )
    assert request.scope.paths == tuple(f"/src/{i}.py" for i in range(10))
    assert Watched.reads == 0


def test_a_v2_request_is_read_from_its_subject_and_description_as_v1_reads_its_tool_call() -> None:
    tool_call = {
        "toolCallId": "t1",
        "kind": "execute",
        "locations": [{"path": "/src/x.txt"}],
        "rawInput": {"command": "touch x.txt"},
    }
    v2 = parse_permission_request(
        {
            "sessionId": "s",
            "title": "touch x.txt",
            "description": "to create the file you asked for",
            "subject": {"type": "tool_call", "toolCall": tool_call},
            "options": [],
        }
    )
    v1 = parse_permission_request({"sessionId": "s", "toolCall": {**tool_call, "title": "touch x.txt"}, "options": []})
    assert v2.scope == v1.scope == ToolCallScope("execute", ("/src/x.txt",), "touch x.txt")
    assert (v2.title, v2.description) == ("touch x.txt", "to create the file you asked for")
    command = {"type": "command", "command": "make clean", "cwd": "/src"}
    request = parse_permission_request({"sessionId": "s", "title": "Clean", "subject": command, "options": []})
    assert request.scope == ToolCallScope("execute", (), "make clean")
    odd = {"type": "_acme.thing", "toolCall": tool_call}  # an unknown subject: a generic prompt
    assert (
        parse_permission_request({"sessionId": "s", "title": "T", "subject": odd, "options": []}).scope
        == ToolCallScope()
    )
