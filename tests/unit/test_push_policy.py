"""Push policy and delivery in one process: which notices are pushed (kinds, when, DND and its
allow list, the away gate with a source that says idle or not), what the push says, the per-target
rate limit with its one summary, and retries then one warning. Apprise is replaced by a recording
`send` here; tests/integration/test_push_delivery.py pushes through real Apprise to a loopback server."""

from __future__ import annotations

import asyncio
import sys
from collections.abc import Coroutine, Iterator
from datetime import datetime
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

import keyring
import pytest
from keyring.backend import KeyringBackend

from acp_tray.backoff import BackoffPolicy
from acp_tray.events import Event, NoticeReceived, PermissionAsked, PermissionOption, TurnEnded
from acp_tray.prefs.model import Preferences
from acp_tray.presentation.own_notices import own_notice
from acp_tray.presentation.router import Presentation, Router
from acp_tray.protocol.notice import Notice
from acp_tray.push.choice import held_by, message_of, push_kind
from acp_tray.push.pusher import Pusher
from acp_tray.push.targets import PushTargets
from tests.support.clock import FakeClock

ZONE = ZoneInfo("Europe/Berlin")
START = datetime(2026, 11, 27, 15, 0, tzinfo=ZONE)
URL = "json://127.0.0.1:9/hook-Tk9secret"


class MemoryKeyring(KeyringBackend):
    """The keyring in memory: the OS's is tests/security's and tests/integration's."""

    priority = 1

    def __init__(self) -> None:
        super().__init__()  # type: ignore[no-untyped-call]
        self.values: dict[tuple[str, str], str] = {}

    def get_password(self, service: str, username: str) -> str | None:
        return self.values.get((service, username))

    def set_password(self, service: str, username: str, password: str) -> None:
        self.values[(service, username)] = password

    def delete_password(self, service: str, username: str) -> None:
        del self.values[(service, username)]


@pytest.fixture
def memory_keyring() -> Iterator[MemoryKeyring]:
    before = keyring.get_keyring()
    backend = MemoryKeyring()
    keyring.set_keyring(backend)
    try:
        yield backend
    finally:
        keyring.set_keyring(before)


class Source:
    name = "test source"

    def __init__(self, idle: float | None, locked: bool = False) -> None:
        self.idle, self.lock = idle, locked
        self.asked = 0

    def idle_seconds(self) -> float | None:
        self.asked += 1
        return self.idle

    def locked(self) -> bool:
        return self.lock


class Bench:
    """A router and a pusher on a fake clock; `send` records what would have reached the service."""

    def __init__(self, tmp_path: Path, push: dict[str, Any], *, source: Source | None = None, accept: bool = True):
        self.prefs = Preferences.model_validate({"push": push})
        self.clock = FakeClock(START)
        self.router = Router(self.prefs, self.clock)
        self.sent: list[tuple[str, str, str]] = []
        self.reported: list[Event] = []
        self.tasks: list[asyncio.Task[None]] = []
        self.accept = accept
        self.source = source or Source(None)
        targets = PushTargets(tmp_path / "push-targets.json")
        targets.store("phone", URL)
        self.pusher = Pusher(
            targets, lambda: self.prefs, self.clock, self.reported.append, self.spawn,
            away=lambda: self.source, send=self.send, retry=BackoffPolicy(initial=0.01, give_up_after=3),
        )  # fmt: skip

    def spawn(self, work: Coroutine[Any, Any, None]) -> None:
        self.tasks.append(asyncio.ensure_future(work))

    def send(self, url: str, title: str, body: str, actions: str = "") -> bool:
        self.sent.append((url, title, body))
        return self.accept

    async def offer(self, event: Event, notice: NoticeReceived | None = None) -> list[str]:
        notice = notice or (event if isinstance(event, NoticeReceived) else None)
        assert notice is not None
        _, presentation = self.router.route(notice)
        assert presentation is not None
        pushed = self.pusher.offer(presentation, event)
        result = await pushed if isinstance(pushed, asyncio.Future) else pushed
        await self.settle()
        return result

    async def settle(self) -> None:
        while not all(task.done() for task in self.tasks):
            await asyncio.gather(*self.tasks)


def said(severity: str, title: str, agent: str = "bot") -> NoticeReceived:
    return NoticeReceived(agent, "s1", Notice(severity, title, f"about {title}"))


def own(event: Event) -> NoticeReceived:
    made = own_notice(event)
    assert made is not None
    return NoticeReceived(made.agent, made.session_id, made.notice, source="acp-tray", actions=made.actions)


ASKED = PermissionAsked("bot", "s1", "a7", "Run `rm -rf build`", (PermissionOption("ok", "Allow", "allow_once"),), 300)


def test_kinds_follow_the_event_and_dnd_holds_all_but_what_it_allows() -> None:
    assert push_kind(ASKED, "warning") == "approvals"
    assert push_kind(TurnEnded("bot", "s1", "default", "end_turn"), "info") == "turns"
    assert push_kind(said("error", "x"), "error") == "error"
    prefs = Preferences.model_validate({"push": {"kinds": ["error", "approvals"]}})
    assert held_by(prefs, "info", "info", START) == "kinds"
    assert held_by(prefs, "error", "error", START) is None
    never = Preferences.model_validate({"push": {"when": "never"}})
    assert held_by(never, "error", "error", START) == "never"
    dnd = Preferences.model_validate({"dnd": {"enabled": True, "allow": ["error"]}})
    assert held_by(dnd, "approvals", "warning", START) == "dnd"
    assert held_by(dnd, "error", "error", START) is None  # allowed through
    assert held_by(dnd, "turns", "error", START) is None  # a failed turn: by its severity class


def test_an_approval_says_what_the_agent_wants_and_that_it_waits_a_turn_its_stop_reason() -> None:
    router = Router(Preferences(), FakeClock(START))

    def presented(notice: NoticeReceived) -> Presentation:
        presentation = router.route(notice)[1]
        assert presentation is not None
        return presentation

    approval = message_of(presented(own(ASKED)), ASKED)
    assert approval.title == "bot: Needs approval"
    assert approval.body.startswith("It wants: Run `rm -rf build`\nIt waits for your answer at the desk")
    assert "acp-tray approve a7" in approval.body
    stopped = TurnEnded("bot", "s1", "default", "max_tokens")
    assert "Stop reason: max_tokens" in message_of(presented(own(stopped)), stopped).body
    failed = TurnEnded("bot", "s1", "default", None, error="the model is overloaded")
    assert message_of(presented(own(failed)), failed).body == "Failed: the model is overloaded"
    hostile = said("error", "evil\u202e\x1b[31m title\nsecond line")
    assert message_of(presented(hostile), hostile).title == "bot: evil[31m title second line"


async def test_always_pushes_what_the_kinds_ask_for_and_never_pushes_nothing(
    tmp_path: Path, memory_keyring: MemoryKeyring
) -> None:
    bench = Bench(tmp_path, {"when": "always"})
    assert await bench.offer(said("error", "broke")) == ["phone"]
    assert await bench.offer(said("info", "chatter")) == []  # not in the default kinds
    assert await bench.offer(ASKED, own(ASKED)) == ["phone"]
    assert [title for _, title, _ in bench.sent] == ["bot: broke", "bot: Needs approval"]
    assert {url for url, _, _ in bench.sent} == {URL}
    bench.prefs = Preferences.model_validate({"push": {"when": "never"}})
    assert await bench.offer(said("error", "broke again")) == []
    assert len(bench.sent) == 2


async def test_away_pushes_only_while_the_source_says_idle_or_locked(
    tmp_path: Path, memory_keyring: MemoryKeyring
) -> None:
    source = Source(idle=400.0)
    bench = Bench(tmp_path, {"when": "away", "away_after": 300}, source=source)
    assert await bench.offer(said("error", "while away")) == ["phone"]
    source.idle = 5.0
    assert await bench.offer(said("error", "back at the desk")) == []
    source.lock = True
    assert await bench.offer(said("error", "screen locked")) == ["phone"]
    source.lock, source.idle = False, None  # cannot tell: not away
    assert await bench.offer(said("error", "cannot tell")) == []
    assert [title for _, title, _ in bench.sent] == ["bot: while away", "bot: screen locked"]
    asked = source.asked
    assert await bench.offer(said("info", "not a kind pushed")) == [] and source.asked == asked  # not asked for it


async def test_notices_that_come_while_the_source_is_asked_share_its_answer(
    tmp_path: Path, memory_keyring: MemoryKeyring
) -> None:
    source = Source(idle=900.0)
    bench = Bench(tmp_path, {"when": "away", "burst": 100}, source=source)
    offered = []
    for i in range(20):
        presentation = bench.router.route(said("error", f"burst {i}"))[1]
        assert presentation is not None
        offered.append(bench.pusher.offer(presentation, said("error", f"burst {i}")))
    decided = [await pushed for pushed in offered if isinstance(pushed, asyncio.Future)]
    await bench.settle()
    assert decided == [["phone"]] * 20 and len(bench.sent) == 20
    assert source.asked == 1  # one look for the whole burst


async def test_a_flood_gives_the_rate_limit_s_pushes_and_one_summary(
    tmp_path: Path, memory_keyring: MemoryKeyring
) -> None:
    bench = Bench(tmp_path, {"when": "always", "burst": 3, "per": 60})
    pushed = [await bench.offer(said("error", f"flood {i}")) for i in range(1000)]
    assert sum(1 for p in pushed if p) == 3
    bench.clock.advance(30)
    bench.pusher._flush_summaries()  # the timer's due (the fake clock moved, not the loop's)
    await bench.settle()
    titles = [title for _, title, _ in bench.sent]
    assert titles[:3] == ["bot: flood 0", "bot: flood 1", "bot: flood 2"]
    assert titles[3:] == ["997 more notices from bot"]  # the router's summary words


async def test_a_refused_push_is_retried_then_said_once(tmp_path: Path, memory_keyring: MemoryKeyring) -> None:
    bench = Bench(tmp_path, {"when": "always"}, accept=False)
    assert await bench.offer(said("error", "first")) == ["phone"]
    assert len(bench.sent) == 3  # tried 3 times
    assert await bench.offer(said("error", "second")) == ["phone"]
    warnings = [e for e in bench.reported if isinstance(e, NoticeReceived)]
    assert [w.notice.title for w in warnings] == ["Push to phone failed"]  # once
    description = warnings[0].notice.description or ""
    assert URL not in description and "acp-tray push test phone" in description
    bench.accept = True
    assert await bench.offer(said("error", "third")) == ["phone"]
    bench.accept = False
    bench.clock.advance(60)  # past the rate limit (3 a minute)
    assert await bench.offer(said("error", "fourth")) == ["phone"]
    assert len([e for e in bench.reported if isinstance(e, NoticeReceived)]) == 2  # said again after one got through


def test_targets_keep_names_and_services_in_the_file_and_urls_in_the_keyring(
    tmp_path: Path, memory_keyring: MemoryKeyring
) -> None:
    path = tmp_path / "push-targets.json"
    targets = PushTargets(path)
    assert targets.store("phone", " ntfy://127.0.0.1:8/topic-Zx81 ") == "ntfy"
    assert targets.read() == {"phone": "ntfy"}
    assert "topic-Zx81" not in path.read_text()
    assert sys.platform == "win32" or path.stat().st_mode & 0o777 == 0o600  # private (Windows: the profile's ACL)
    assert PushTargets(path).url("phone") == "ntfy://127.0.0.1:8/topic-Zx81"
    assert targets.delete("phone") and not targets.delete("phone")
    assert targets.read() == {} and memory_keyring.values == {}
