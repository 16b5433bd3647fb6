"""Short turns and sounds on a real notification server (dunst on a private session bus, Xvfb): the
daemon in the test's loop with the injected clock, a real agent subprocess (tests/agents/session_agent.py)
whose turns end when the test says, and what reached dunst (`dunstctl history`) and the bus (`dbus-monitor`
on the `Notify` calls)."""

from __future__ import annotations

import asyncio
import json
import re
import subprocess
from collections.abc import AsyncIterator, Iterator
from datetime import datetime
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

import pytest

from acp_tray.agents.turns import PromptJob, TurnOutcome
from acp_tray.app.compose import assemble
from acp_tray.app.daemon import Daemon
from acp_tray.notifiers.chain import NotifierChain
from acp_tray.notifiers.freedesktop import FreedesktopBackend
from acp_tray.prefs.load import read_preferences
from acp_tray.state.history import HistoryWriter
from tests.support.agents import session_agent_table
from tests.support.clock import FakeClock
from tests.support.waiting import until, until_async

START = datetime(2026, 12, 2, 10, 0, tzinfo=ZoneInfo("Europe/Berlin"))


class OnDunst:
    """The daemon on `config.toml` (with `settings` above its agent `bot`; no coalescing: each turn's
    "Finished" is its own), presenting through the freedesktop backend on the test desktop's dunst,
    its time from `clock`."""

    def __init__(self, tmp_path: Path, settings: str) -> None:
        self.tmp_path = tmp_path
        self.clock = FakeClock(START)
        self.path = tmp_path / "config.toml"
        self.path.write_text(f"[coalesce]\nwindow = 0\n{settings}\n{session_agent_table('bot')}", encoding="utf-8")
        self.history = tmp_path / "history.jsonl"
        self.chain = NotifierChain([FreedesktopBackend(lambda group, what: None)])
        self.daemon: Daemon | None = None
        self.stop = asyncio.Event()
        self.task: asyncio.Task[None] | None = None

    async def __aenter__(self) -> OnDunst:
        assert (await self.chain.start()).startswith("freedesktop (dunst")
        self.daemon = assemble(
            read_preferences(self.path),
            history=HistoryWriter(self.history),
            surfaces=[self.chain.present],
            status=lambda event: None,
            prefs_path=self.path,
            clock=self.clock,
        )
        self.task = asyncio.create_task(self.daemon.run(self.stop))
        hosts = self.running.core.fleet.hosts
        await until_async(lambda: "bot" in hosts and hosts["bot"].connected.is_set(), 30, "bot connected")
        return self

    async def __aexit__(self, *exc: object) -> None:
        self.stop.set()
        if self.task is not None:
            await asyncio.wait_for(self.task, 20)
        await self.chain.aclose()

    @property
    def running(self) -> Daemon:
        assert self.daemon is not None
        return self.daemon

    async def presented(self) -> None:
        """Every event so far through the pump, and every notification handed to dunst."""
        await asyncio.wait_for(self.running.core.queue.join(), 10)
        await asyncio.wait_for(self.chain.drain(), 10)

    async def turn(self, seconds: float, text: str | None = None) -> TurnOutcome:
        """A prompt turn that runs `seconds` by the clock: it starts, the clock moves, then it ends
        (`hold PATH` ends its turn once the file exists). `text`: another prompt, run as it comes."""
        host = self.running.core.fleet.hosts["bot"]
        await until_async(lambda: host.default_key in host.sessions, 30, "bot's default session")
        session = host.sessions[host.default_key]
        release = self.tmp_path / f"release-{self.clock.monotonic()}"
        job = PromptJob(session.key, text or f"hold {release}")
        session.submit(job)
        await until_async(lambda: session.current is job or job.result.done(), 30, "the turn running")
        await self.presented()  # its start is seen by the pump, at the clock's time
        self.clock.advance(seconds)
        release.touch()
        outcome = await asyncio.wait_for(job.result, 30)
        await self.presented()
        return outcome

    def records(self, title: str) -> list[dict[str, Any]]:
        lines = self.history.read_text(encoding="utf-8").splitlines()
        return [record for line in lines if (record := json.loads(line)).get("title") == title]

    def listed(self) -> list[str]:
        return [item.title for item in self.running.core.publisher.snapshot().recent]


@pytest.fixture
async def on_dunst(
    tmp_path: Path, desktop_env: dict[str, str], request: pytest.FixtureRequest
) -> AsyncIterator[OnDunst]:
    async with OnDunst(tmp_path, getattr(request, "param", "")) as running:
        yield running


async def test_a_1_s_turn_is_listed_without_a_popup_and_a_30_s_one_pops_up(on_dunst: OnDunst, desktop: Any) -> None:
    mark = desktop.mark()
    assert (await on_dunst.turn(1)).stop_reason == "end_turn"
    assert [item["summary"] for item in desktop.since(mark)] == []  # on main: "bot: Finished"
    short = on_dunst.records("Finished")
    assert [(r["suppressed"], r["notified"], r["tray"]) for r in short] == [("short_turn", False, True)]
    assert "a 1.0 s turn, under [turns] notify_after = 20 s: tray only" in short[0]["reason"]
    assert on_dunst.listed() == ["Finished"]
    mark = desktop.mark()
    assert (await on_dunst.turn(30)).stop_reason == "end_turn"
    assert [item["summary"] for item in desktop.since(mark)] == ["bot: Finished"]
    assert [r["notified"] for r in on_dunst.records("Finished")] == [False, True]
    assert on_dunst.listed() == ["Finished", "Finished"]


@pytest.mark.parametrize("on_dunst", ["[turns]\nnotify_after = 0"], indirect=True)
async def test_notify_after_0_pops_up_for_every_turn(on_dunst: OnDunst, desktop: Any) -> None:
    for seconds in (0, 1):  # each seen on its own: dunst stacks identical notifications on screen
        mark = desktop.mark()
        await on_dunst.turn(seconds)
        assert [item["summary"] for item in desktop.since(mark)] == ["bot: Finished"]
    assert [r["notified"] for r in on_dunst.records("Finished")] == [True, True]


async def test_a_failed_turn_pops_up_however_short(on_dunst: OnDunst, desktop: Any) -> None:
    mark = desktop.mark()
    outcome = await on_dunst.turn(0, "fail")
    assert outcome.error is not None
    assert [item["summary"] for item in desktop.since(mark)] == ["bot: Prompt failed"]


@pytest.fixture
def notify_calls(desktop_env: dict[str, str], tmp_path: Path) -> Iterator[Path]:
    """`dbus-monitor` on the test bus, writing every `Notify` call to a file."""
    out = tmp_path / "monitor.txt"
    rule = "type='method_call',interface='org.freedesktop.Notifications',member='Notify'"
    with out.open("wb") as sink:
        monitor = subprocess.Popen(
            ["dbus-monitor", "--address", desktop_env["DBUS_SESSION_BUS_ADDRESS"], rule], stdout=sink
        )
    try:
        yield out
    finally:
        monitor.terminate()
        monitor.wait(5)


def hints_by_summary(monitor_output: str) -> dict[str, dict[str, str]]:
    """Each `Notify` call's summary and the hints it carried (name → dbus-monitor's words for its value)."""
    found: dict[str, dict[str, str]] = {}
    for call in monitor_output.split("method call")[1:]:
        strings = re.findall(r'^\s*string "(.*)"$', call, re.MULTILINE)
        hints = dict(re.findall(r'string "([\w-]+)"\s*\n\s*variant\s+(\w+ "?[^"\n]*"?)', call))
        found[strings[2]] = hints  # its strings: app name, icon, summary, body, then the actions
    return found


@pytest.mark.parametrize("on_dunst", ["[turns]\nnotify_after = 0"], indirect=True)
async def test_a_warning_carries_its_sound_name_and_an_info_asks_for_silence(
    on_dunst: OnDunst, notify_calls: Path, desktop: Any
) -> None:
    mark = desktop.mark()
    await on_dunst.turn(0, "notice Careful")  # a warning notice, then "Finished" (info)
    shown = [item["summary"] for item in desktop.since(mark)]
    assert shown == ["bot: Careful", "bot: Finished"]
    calls = await asyncio.to_thread(
        until, lambda: (seen := hints_by_summary(notify_calls.read_text(encoding="utf-8"))) and len(seen) == 2 and seen
    )
    assert calls["bot: Careful"]["sound-name"] == 'string "dialog-warning"'  # on main: no sound hint
    assert "suppress-sound" not in calls["bot: Careful"]
    assert calls["bot: Finished"]["suppress-sound"] == "boolean true"  # info: off by default
    assert "sound-name" not in calls["bot: Finished"]
