"""A sign-in's "Sign in to AGENT" notification, once the agent is connected (signed in here or
elsewhere): it leaves the screen and the tray's Recent, where its buttons would offer a sign-in
that is no longer needed; taken back the one way every notice on a topic is."""

from __future__ import annotations

from pathlib import Path

from acp_tray.app.compose import assemble
from acp_tray.events import AgentState, AgentStatus, SignInChoice, SignInNeeded
from acp_tray.prefs.model import Preferences
from acp_tray.presentation.router import Presentation
from acp_tray.state.history import HistoryWriter


async def test_the_sign_in_notification_leaves_the_screen_and_recent_once_the_agent_is_connected(
    tmp_path: Path,
) -> None:
    shown: list[Presentation] = []
    withdrawn: list[int] = []
    daemon = assemble(
        Preferences(),
        history=HistoryWriter(tmp_path / "history.jsonl"),
        surfaces=[shown.append],
        withdrawers=[withdrawn.append],
        status=lambda status: None,
    )
    handle, publisher = daemon.pump.handle, daemon.core.publisher

    def recent() -> list[str]:
        return [item.title for item in publisher.snapshot().recent]

    handle(AgentStatus("bot", AgentState.NEEDS_SIGNIN, "waits for you to sign in"))
    handle(
        SignInNeeded(
            "bot", "Authentication required", (SignInChoice("token", "Use a token", "agent", "", doable=True),)
        )
    )
    asked = next(p for p in shown if p.title == "Sign in to bot")
    assert recent() == ["Sign in to bot"]
    handle(AgentStatus("bot", AgentState.CONNECTED, "session s1 · ACP 2"))
    assert withdrawn == [asked.group]
    assert recent() == []
