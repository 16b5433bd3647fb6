"""The daemon's change feed (for `watch`): a listener hears each change a status reader sees (agent
states, sessions and their queues, approvals, DND, the unread count, each history record) and
nothing more once it unsubscribed. Also: a session's prompt queue says when it changes, and the
typed tray/notification actions read back what they wrote."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from acp_tray.agents.sessions import SessionKey
from acp_tray.agents.turns import HostedSession, PromptJob
from acp_tray.app.compose import assemble
from acp_tray.app.daemon import Daemon
from acp_tray.app.publisher import Change, Changed
from acp_tray.events import (
    AgentState,
    AgentStatus,
    Event,
    NoticeReceived,
    PermissionAsked,
    PermissionOption,
    PermissionSettled,
    QueueChanged,
    SessionAttached,
    TurnEnded,
)
from acp_tray.prefs.load import read_preferences
from acp_tray.prefs.write import set_dnd
from acp_tray.presentation.actions import (
    CLEAR_RECENT,
    QUIT,
    Action,
    AgentAction,
    ApprovalAnswer,
    RecentOpen,
    SetDnd,
    SignIn,
    parse_action,
)
from acp_tray.protocol.notice import Notice
from acp_tray.protocol.version import ProtocolVersion
from acp_tray.state.history import HistoryWriter
from tests.support.waiting import until_async


def daemon_on(tmp_path: Path) -> Daemon:
    path = tmp_path / "config.toml"
    path.write_text("# no agents\n", encoding="utf-8")
    history = HistoryWriter(tmp_path / "history.jsonl")
    return assemble(read_preferences(path), history=history, surfaces=[], status=lambda status: None, prefs_path=path)


async def test_each_kind_of_change_is_heard_until_unsubscribed(tmp_path: Path) -> None:
    daemon = daemon_on(tmp_path)
    heard: list[Change] = []
    unsubscribe = daemon.core.publisher.subscribe(heard.append)
    handle = daemon.pump.handle

    def kinds(event: Event) -> list[Changed]:
        heard.clear()
        handle(event)
        return [change.what for change in heard]

    assert kinds(AgentStatus("bot", AgentState.CONNECTED)) == [Changed.AGENTS]
    assert Changed.SESSIONS in kinds(SessionAttached("bot", "default", "s1", "new"))
    assert kinds(QueueChanged("bot", "s1", "default", True, 2)) == [Changed.SESSIONS]
    assert Changed.SESSIONS in kinds(TurnEnded("bot", "s1", "default", "cancelled"))
    option = PermissionOption("allow", "Allow", "allow_once")
    assert Changed.APPROVALS in kinds(PermissionAsked("bot", "s1", "1", "Run ls", (option,), 60.0))
    assert Changed.APPROVALS in kinds(PermissionSettled("bot", "s1", "1", "allow", "person"))

    notice = kinds(NoticeReceived("bot", "s1", Notice("warning", "Disk nearly full")))
    assert notice == [Changed.HISTORY, Changed.UNREAD]
    assert heard[0].record is not None and heard[0].record["title"] == "Disk nearly full"

    heard.clear()
    daemon.tray.on_choice(CLEAR_RECENT.encode())
    assert [change.what for change in heard] == [Changed.UNREAD]

    heard.clear()
    daemon.core.reloader.change_prefs(lambda file: set_dnd(file, enabled=True, until=None))
    assert Changed.DND in [change.what for change in heard]
    heard.clear()
    daemon.core.reloader.change_prefs(lambda file: set_dnd(file, enabled=True, until=None))
    assert Changed.DND not in [change.what for change in heard]  # told only when it changes

    unsubscribe()
    heard.clear()
    handle(AgentStatus("bot", AgentState.STOPPED))
    handle(NoticeReceived("bot", "s1", Notice("info", "After")))
    assert heard == []
    unsubscribe()  # twice is harmless


async def test_a_listener_that_fails_is_logged_and_the_others_still_hear(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    daemon = daemon_on(tmp_path)
    heard: list[Change] = []

    def broken(change: Change) -> None:
        raise RuntimeError("gone")

    daemon.core.publisher.subscribe(broken)
    daemon.core.publisher.subscribe(heard.append)
    daemon.pump.handle(AgentStatus("bot", AgentState.CONNECTED))
    assert [change.what for change in heard] == [Changed.AGENTS]
    assert "a change listener failed" in caplog.text


class Answering:
    """An agent that ends each turn when told to."""

    def __init__(self) -> None:
        self.go = asyncio.Event()

    async def send_request(self, method: str, params: Any | None = None) -> Any:
        await self.go.wait()
        self.go.clear()
        return {"stopReason": "end_turn"}

    async def send_notification(self, method: str, params: Any | None = None) -> None:
        return None


async def test_the_prompt_queue_says_when_it_changes() -> None:
    key = SessionKey("a", "/", "default")
    events: list[Event] = []
    agent = Answering()
    session = HostedSession(key, "s1", agent, events.append, lambda s: None, ProtocolVersion.V1)

    def queue() -> list[tuple[bool, int]]:
        return [(e.running, e.queued) for e in events if isinstance(e, QueueChanged)]

    first, second = PromptJob(key, "one"), PromptJob(key, "two")
    session.submit(first)
    session.submit(second)
    await until_async(lambda: session.current is not None, what="the first turn to start")
    assert queue() == [(False, 1), (False, 2), (True, 1)]  # queued, queued, the first turn started
    assert await session.cancel(second)
    assert queue()[-1] == (True, 0)
    agent.go.set()
    await first.result
    await asyncio.sleep(0)
    assert queue()[-1] == (False, 0)  # the turn ended
    session.close("done")


def test_every_action_reads_back_what_it_wrote() -> None:
    actions: list[Action] = [
        ApprovalAnswer("7", "allow:once"),  # an option id may hold the separator
        SignIn("codex", 'a "quoted" method'),
        AgentAction("restart", "my:agent"),
        SetDnd("tomorrow"),
        RecentOpen(42),
        QUIT,
        CLEAR_RECENT,
    ]
    for action in actions:
        assert parse_action(action.encode()) == action
    assert ApprovalAnswer("7", "allow_once").encode() == "approval:7:allow_once"
    assert AgentAction("stop", "bot").encode() == "agent:stop:bot"
    for nonsense in ("", "noop", "agent:explode:bot", "dnd:forever", "recent:open:x", "approval:7", "signin:{"):
        assert parse_action(nonsense) is None
