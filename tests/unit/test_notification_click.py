"""A click on a notification opens the window at what it is about: a waiting approval on the overview,
a sign-in on the agents page, any other notice at its own entry in the history (highlighted by its
time), also once the Recent list has let it go; one too old to know opens the history."""

from __future__ import annotations

import asyncio
from typing import Any

from acp_tray.agents.approvals import Approvals
from acp_tray.agents.questions import Questions
from acp_tray.app.actions import NotificationActions
from acp_tray.app.lifetime import Lifetime
from acp_tray.desktop.window_opener import WindowTrouble
from acp_tray.events import Event, NoticeReceived
from acp_tray.presentation.actions import ApprovalAnswer, SignIn, page_for
from acp_tray.presentation.recent import Recent
from tests.support.presentations import make_presentation


class Opened:
    def __init__(self) -> None:
        self.calls: list[tuple[str, str]] = []

    async def __call__(self, page: str, highlight: str) -> None:
        self.calls.append((page, highlight))


class Publisher:
    def changed(self, *args: Any) -> None:
        pass

    def publish_now(self) -> None:
        pass


def clicks(recent: Recent, reported: list[Event], opener: Any) -> NotificationActions:
    """What a notification's click does, with nothing that reaches an agent (no fleet)."""
    fleet: Any = None
    publisher: Any = Publisher()
    none = Questions(lambda event: None)
    return NotificationActions(
        Approvals(lambda event: None), fleet, recent, publisher, Lifetime(), questions=none, report=reported.append,
        opener=opener,
    )  # fmt: skip


def test_the_page_a_notification_opens_follows_its_buttons() -> None:
    assert page_for(()) == "history"
    assert page_for(((ApprovalAnswer("7", "allow").encode(), "✔ Allow once"),)) == "overview"
    assert page_for(((SignIn("codex", "chatgpt").encode(), "ChatGPT"),)) == "agents"
    assert page_for((("something:else", "?"),)) == "history"


async def test_a_click_opens_the_window_at_the_approval_the_sign_in_or_the_history_entry() -> None:
    recent, opened = Recent(), Opened()
    approval = make_presentation(1, "Needs approval", actions=((ApprovalAnswer("7", "allow").encode(), "Allow"),))
    sign_in = make_presentation(2, "Sign in needed", actions=((SignIn("codex", "chatgpt").encode(), "ChatGPT"),))
    notice = make_presentation(3, "Build failed", "error")
    for presentation in (approval, sign_in, notice):
        recent.add(presentation)
    reported: list[Event] = []
    actions = clicks(recent, reported, opened)  # a click does not reach the agents
    for group in (1, 2, 3, 99):
        actions.on_notification(group, "clicked")
    await asyncio.sleep(0)
    assert opened.calls == [
        ("overview", ""),
        ("agents", ""),
        ("history", notice.time.isoformat(timespec="milliseconds")),
        ("history", ""),  # never shown, or too old to know: the history, at its top
    ]
    assert not any(item.unread for item in recent.items())  # a click also marks it read
    assert reported == []  # the window opened: nothing to say


async def test_a_notice_that_left_the_recent_list_still_opens_at_its_history_entry() -> None:
    recent, opened = Recent(size=15), Opened()
    first = make_presentation(1, "Build failed", "error")
    recent.add(first)
    for group in range(2, 40):  # a busy agent: the Recent list keeps the last 15
        recent.add(make_presentation(group, f"step {group}"))
    recent.clear()  # and the person cleared it; the notification is still in the notification centre
    assert all(item.group != 1 for item in recent.items())
    reported: list[Event] = []
    actions = clicks(recent, reported, opened)  # a click does not reach the agents
    actions.on_notification(1, "clicked")
    await asyncio.sleep(0)
    assert opened.calls == [("history", first.time.isoformat(timespec="milliseconds"))]


async def test_a_window_that_cannot_open_is_said_to_the_person_whatever_the_routes() -> None:
    """The tray's "Diagnostics…" opens the window; when it cannot, the click must not seem to do
    nothing: the answer says why and how to run the same checks, marked as an answer to the person."""

    async def failing(page: str, highlight: str) -> WindowTrouble | None:
        return WindowTrouble("The acp-tray window did not open", "no browser to open the window with")

    reported: list[Event] = []
    actions = clicks(Recent(), reported, failing)  # a click does not reach the agents
    actions.open_window("diagnostics")
    for _ in range(3):
        await asyncio.sleep(0)
    (answer,) = reported
    assert isinstance(answer, NoticeReceived)
    assert answer.attention == "answer" and answer.notice.severity == "error"
    assert "no browser to open the window with" in (answer.notice.description or "")
    assert "acp-tray doctor" in (answer.notice.description or "")
