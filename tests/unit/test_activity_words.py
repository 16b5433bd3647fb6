"""What an agent is doing, in pure parts: its retry words, a subagent's patch, the words a person
reads, and the tray's tooltip, badge and Agents submenu while an agent waits for the person."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from acp_tray.events import AgentState
from acp_tray.presentation.doing import silence_words, subagent_words
from acp_tray.protocol.activity import UNCHANGED, progress_of, progress_words, subagent_change
from acp_tray.tray.menu import menu_of
from acp_tray.tray.snapshot import AgentRow, TraySnapshot, badge_of, tooltip_of


@pytest.mark.parametrize(
    ("message", "words"),
    [
        ("Reconnecting... 2/5 (stream disconnected before completion)", "reconnecting, 2 of 5"),
        ("Reconnecting… 5/5", "reconnecting, 5 of 5"),
        ("waiting for network\nmore", "waiting for network"),
    ],
)
def test_an_agents_retry_message_in_a_persons_words(message: str, words: str) -> None:
    assert progress_words(message) == words


def test_only_a_retry_is_progress() -> None:
    retry = {"_meta": {"codex": {"error": {"message": "Reconnecting... 3/5", "willRetry": True}}}}
    assert progress_of(retry) == "reconnecting, 3 of 5"
    assert progress_of({"_meta": {"codex": {"error": {"message": "gone", "willRetry": False}}}}) is None
    assert progress_of({"title": "say hello"}) is None


def test_a_subagent_update_patches_what_it_names() -> None:
    first = subagent_change({"sessionId": "c", "title": "Child check", "description": "general-purpose"})
    assert first is not None and (first.title, first.description, first.state) == (
        "Child check",
        "general-purpose",
        UNCHANGED,
    )
    later = subagent_change({"sessionId": "c", "title": None, "state": {"state": "requires_action"}})
    assert later is not None and (later.title, later.description, later.state) == (None, UNCHANGED, "requires_action")
    assert subagent_change({"title": "no child"}) is None


def test_the_words_a_person_reads() -> None:
    assert (
        subagent_words("Child check", "general-purpose", "running", False) == "Child check (general-purpose): working"
    )
    assert subagent_words("", "general-purpose", "running", True) == "general-purpose: waits for you"
    now = datetime(2026, 1, 1, tzinfo=UTC)
    assert silence_words(now - timedelta(seconds=150), now) == "no word from the agent for 2 min"


def test_the_tray_says_how_many_agents_wait_for_you() -> None:
    doing = ("› Child check (general-purpose): waits for you",)
    agents = (
        AgentRow("claude", AgentState.CONNECTED, needs_you=True, doing=doing),
        AgentRow("codex", AgentState.CONNECTED),
    )
    snapshot = TraySnapshot(agents=agents)
    assert tooltip_of(snapshot).startswith("acp-tray · 1 agent waits for you · ")
    assert badge_of(snapshot) == "warning"
    (submenu,) = [e for e in menu_of(snapshot) if e.label == "Agents"]
    claude = submenu.children[0]
    assert claude.label == "claude — waits for you"
    assert claude.children[0].label == doing[0]
