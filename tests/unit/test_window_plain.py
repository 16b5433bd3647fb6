"""The window's plain words (window/plain.py, views.agent_view): what a person reads has no session
id, protocol version, agent error code or command to type; each is kept for the page's Details."""

from __future__ import annotations

from datetime import datetime

from acp_tray.control import replies
from acp_tray.window.plain import Said, agent_detail, said
from acp_tray.window.views import agent_view


def test_a_connected_agent_s_session_and_protocol_are_all_details() -> None:
    assert agent_detail("session 4f1c-77aa · ACP 2") == Said("", ["Session id: 4f1c-77aa", "Protocol: ACP 2"])


def test_an_agent_started_again_on_another_protocol_version_says_what_it_means() -> None:
    assert agent_detail("again, offering ACP 1: it speaks ACP 1 only") == Said(
        "starting again, in the older way it understands", ["Protocol: ACP 1", "it speaks ACP 1 only"]
    )


def test_an_agent_s_error_code_goes_to_the_details() -> None:
    found = said("it refused to start a session: no model is configured (code -32603)")
    assert found == Said("it refused to start a session: no model is configured", ["Error code: -32603"])


def test_a_clause_that_names_a_command_goes_to_the_details() -> None:
    assert said("there is no push target x (see `acp-tray push list`)") == Said(
        "there is no push target x", ["In a terminal: acp-tray push list"]
    )
    no_terminal = said(
        "no terminal emulator found: set $TERMINAL (e.g. TERMINAL=xterm) or install one, "
        "or run `acp-tray login locked tui` in a terminal yourself"
    )
    assert no_terminal == Said(
        "no terminal emulator found: set $TERMINAL (e.g. TERMINAL=xterm) or install one",
        ["In a terminal: acp-tray login locked tui"],
    )


def test_plain_lines_are_left_as_they_are() -> None:
    assert said("Stopped.") == Said("Stopped.", [])
    assert said("Sent: the service accepted it.") == Said("Sent: the service accepted it.", [])


def test_the_agents_card_shows_the_plain_line_and_keeps_the_rest() -> None:
    row: replies.AgentRow = {
        "name": "picky",
        "state": "refused",
        "detail": "it refused to start a session: no model (code -32603)",
        "target": "python agent.py",
        "sessions": 0,
        "busy": 0,
        "queued": 0,
        "needs_you": False,
        "problem": {"what": "it refused to start a session: no model (code -32603)", "stderr": [], "time": "x"},
    }  # type: ignore[typeddict-item]  # only what the view reads
    view = agent_view(row, datetime(2026, 1, 1))
    assert view.detail == "it refused to start a session: no model" and view.technical == ["Error code: -32603"]
    assert view.problem is not None and view.problem.what == "it refused to start a session: no model"
    assert view.problem.technical == ["Error code: -32603"]
