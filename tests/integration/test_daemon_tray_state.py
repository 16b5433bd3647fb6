"""What the tray sees and does, through the daemon, with a real agent and a real preferences file."""

from __future__ import annotations

import asyncio
from datetime import timedelta
from pathlib import Path

from acp_tray.app.actions import Desk
from acp_tray.events import AgentState
from acp_tray.prefs.load import read_preferences
from acp_tray.prefs.write import set_dnd
from acp_tray.tray.snapshot import badge_of
from tests.support.in_process import scripted_agent_config, start_in_process
from tests.support.waiting import until_async


async def test_tray_snapshots_and_actions(tmp_path: Path) -> None:
    steps = [
        {"update": {"sessionUpdate": "notice", "severity": "info", "title": "Indexed"}},
        {"update": {"sessionUpdate": "notice", "severity": "warning", "title": "Rerouted", "description": "d"}},
    ]
    daemon, snapshots, shown, stop, task = start_in_process(tmp_path, scripted_agent_config(tmp_path, steps))
    path = tmp_path / "config.toml"
    try:
        await until_async(lambda: bool(snapshots) and snapshots[-1].unread == 2)
        latest = snapshots[-1]
        assert [item.title for item in latest.recent] == ["Rerouted", "Indexed"]  # newest first
        assert badge_of(latest) == "warning"
        assert [(row.name, row.state) for row in latest.agents] == [("bot", AgentState.CONNECTED)]

        # a notification closed by the person marks its item read: the badge follows
        daemon.core.notifications.on_notification(latest.recent[0].group, "closed")
        assert badge_of(snapshots[-1]) == "info"

        # "Do not disturb -> For 1 hour" writes the file (comments kept) and shows at once
        daemon.tray.on_choice("dnd:1h")
        assert snapshots[-1].dnd.active and snapshots[-1].dnd.until is not None
        text = path.read_text(encoding="utf-8")
        assert "enabled = true" in text and "# Do not disturb: no native notifications" in text
        assert read_preferences(path).dnd.enabled
        daemon.tray.on_choice("quiet-hours:toggle")
        assert snapshots[-1].quiet_hours_enabled and read_preferences(path).dnd.quiet_hours.enabled
        daemon.tray.on_choice("dnd:off")
        assert not read_preferences(path).dnd.enabled

        # choosing a recent item shows its full text again as a native notification, and reads it
        indexed = next(item for item in snapshots[-1].recent if item.title == "Indexed")
        daemon.tray.on_choice(f"recent:open:{indexed.group}")
        assert shown[-1].title == "Indexed" and shown[-1].notify and not shown[-1].tray
        assert snapshots[-1].unread == 0

        daemon.tray.on_choice("recent:clear")
        assert snapshots[-1].recent == ()

        # agents: stop, then start again
        daemon.tray.on_choice("agent:stop:bot")
        await until_async(lambda: snapshots[-1].agents[0].state is AgentState.STOPPED)
        daemon.tray.on_choice("agent:start:bot")
        await until_async(lambda: snapshots[-1].agents[0].state is AgentState.CONNECTED)

        daemon.tray.on_choice("quit")
        await asyncio.wait_for(task, 20)  # Quit ends the daemon cleanly
    finally:
        stop.set()
        if not task.done():
            await asyncio.wait_for(task, 20)


async def test_the_tray_learns_when_timed_dnd_ends_without_polling(tmp_path: Path) -> None:
    path = scripted_agent_config(tmp_path, [])
    daemon, snapshots, _, stop, task = start_in_process(tmp_path, path)
    try:
        await until_async(lambda: bool(snapshots))
        soon = daemon.core.router.clock.now() + timedelta(seconds=3)  # the file keeps whole seconds: 2 s or more
        daemon.core.router.update_prefs(set_dnd(path, enabled=True, until=soon))
        daemon.tray.on_choice("noop")  # any change publishes, and arms the DND-end timer
        assert snapshots[-1].dnd.active
        await until_async(lambda: not snapshots[-1].dnd.active, timeout=10)
    finally:
        stop.set()
        await asyncio.wait_for(task, 20)


async def test_without_native_notifications_show_again_copies_to_the_clipboard(tmp_path: Path) -> None:
    steps = [{"update": {"sessionUpdate": "notice", "severity": "warning", "title": "Rerouted", "description": "d"}}]
    copied: list[str] = []
    desk = Desk(native_notifications=lambda: False, copy_to_clipboard=copied.append)
    daemon, snapshots, shown, stop, task = start_in_process(tmp_path, scripted_agent_config(tmp_path, steps), desk)
    try:
        await until_async(lambda: bool(snapshots) and snapshots[-1].unread == 1)
        presented = len(shown)
        daemon.tray.on_choice(f"recent:open:{snapshots[-1].recent[0].group}")
        assert copied == ["bot: Rerouted\nd"] and len(shown) == presented
        assert snapshots[-1].unread == 0
    finally:
        stop.set()
        await asyncio.wait_for(task, 20)
