"""The sessions page's prompt box, checked before anything is sent (pure): a new session's name and
working directory, an existing session's choice, and how a turn ended in a person's words."""

from __future__ import annotations

import re
import tempfile
from pathlib import Path

import pytest

from acp_tray.control import api, errors, replies, watch_events
from acp_tray.presentation.own_notices import stop_words
from acp_tray.window.app import templates
from acp_tray.window.sessions_page import NEW, check, choice_value, form, waiting_on

SESSION: replies.SessionRow = {
    "agent": "demo", "name": "review", "cwd": "/srv/app", "session_id": "s1", "state": "idle", "queued": 0, "turns": 1,
    "needs_you": False, "progress": "", "silent_since": None, "subagents": [],
    "title": None, "compacting": False, "usage": None,
    "updated": "2026-12-04T10:00:00.000000+00:00",
}  # fmt: skip


NOWHERE = str(Path(tempfile.gettempdir()).resolve() / "no" / "such" / "folder")  # a full path on every OS


def values(**given: str) -> dict[str, str]:
    return {"agent": "demo", "session": NEW, "name": "build", "cwd": "", "text": "hello", **given}


def test_a_new_session_is_sent_with_its_name_and_folder(tmp_path: Path) -> None:
    assert check(values(cwd=str(tmp_path))) == api.PromptArgs("demo", "hello", "build", str(tmp_path))
    assert check(values()) == api.PromptArgs("demo", "hello", "build", None)  # the agent's folder


def test_an_existing_session_is_sent_with_its_folder() -> None:
    chosen = values(session=choice_value("review", "/srv/app"), name="", cwd="ignored")
    assert check(chosen) == api.PromptArgs("demo", "hello", "review", "/srv/app")


@pytest.mark.parametrize(
    ("given", "words"),
    [
        ({"text": "  "}, "Type a prompt first."),
        ({"agent": ""}, "Choose an agent."),
        ({"name": " "}, "Give the new session a name"),
        ({"cwd": "relative/dir"}, "Give the folder's full path"),
        ({"cwd": NOWHERE}, re.escape(f"There is no folder '{NOWHERE}'")),
        ({"session": "not json"}, "Choose a session again"),
    ],
)
def test_a_wrong_field_is_said_plainly(given: dict[str, str], words: str) -> None:
    with pytest.raises(errors.ArgumentError, match=words):
        check(values(**given))


def test_the_chosen_agents_sessions_are_the_choices() -> None:
    state: watch_events.WatchState = {"agents": [], "sessions": [SESSION, {**SESSION, "agent": "other", "name": "x"}]}
    chosen = form(state, {"session": "review", "cwd": "/srv/app"})
    assert chosen["session_options"] == [] and chosen["chosen_session"] == NEW  # no agent: nothing to choose
    state["agents"] = [{"name": "demo"}, {"name": "other"}]  # type: ignore[typeddict-item]
    chosen = form(state, {"agent": "demo", "session": "review", "cwd": "/srv/app"})
    assert chosen["chosen_agent"] == "demo"
    assert chosen["session_options"] == [(choice_value("review", "/srv/app"), "review — /srv/app")]
    assert chosen["chosen_session"] == choice_value("review", "/srv/app")
    assert form(state, {})["chosen_agent"] == "demo"
    assert form(state, {})["chosen_session"] == choice_value("review", "/srv/app")  # its last session, not "new"


def test_the_prompt_goes_to_the_agents_last_session_by_default() -> None:
    older: replies.SessionRow = {**SESSION, "name": "old", "state": "detached", "updated": "2026-12-04T11:00:00+00:00"}
    newer: replies.SessionRow = {**SESSION, "name": "new", "state": "detached", "updated": "2026-12-04T12:00:00+00:00"}
    state: watch_events.WatchState = {"agents": [{"name": "demo"}], "sessions": [older, newer]}  # type: ignore[typeddict-item]
    assert form(state, {})["chosen_session"] == choice_value("new", "/srv/app")  # the one used last
    state["sessions"] = [older, newer, SESSION]  # open now: before those kept from before
    assert form(state, {})["chosen_session"] == choice_value("review", "/srv/app")
    state["sessions"] = []
    assert form(state, {})["chosen_session"] == NEW  # none yet: a new one


@pytest.mark.parametrize(
    ("reason", "words"),
    [
        ("end_turn", "Done"),
        ("cancelled", "Cancelled"),
        ("max_tokens", "Stopped: token limit reached"),
        ("refusal", "Refused to continue"),
        ("_future", "Stopped: _future"),
        (None, "Stopped: no reason given"),
    ],
)
def test_how_a_turn_ended_in_words(reason: str | None, words: str) -> None:
    assert stop_words(reason) == words


def test_a_subagents_request_waits_beside_its_parents_turn_and_names_the_subagent() -> None:
    child: replies.SubagentRow = {
        "session_id": "child-1", "title": "Child check", "kind": "", "state": "", "needs_you": True,
    }  # fmt: skip
    asked: replies.ApprovalRow = {
        "id": "7", "agent": "demo", "session_id": "child-1", "title": "touch marker", "options": [], "details": [],
        "subagent": "Child check",
    }  # fmt: skip
    elsewhere: replies.ApprovalRow = {**asked, "id": "8", "session_id": "other-child", "subagent": "Other"}
    state: watch_events.WatchState = {"sessions": [{**SESSION, "subagents": [child]}], "approvals": [asked, elsewhere]}
    waiting = waiting_on(state, "demo", "s1")
    assert [a.id for a in waiting["approvals"]] == ["7"]
    html = templates().get_template("_turn_approvals.html").render(**waiting)
    assert "<strong>demo › Child check</strong> wants to: touch marker" in html, html
