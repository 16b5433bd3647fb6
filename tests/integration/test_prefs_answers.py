"""What a save of the preferences file says back to the person, whatever the routes and DND say:
"Preferences not applied" pops up (also during DND, also with errors routed to the tray only and
info to nowhere); once the file is right again, the errors leave the screen and Recent, and a brief
"Preferences applied" says so. In a daemon in this process (its Recent list, what it withdraws),
and in the real daemon on dunst (what pops up)."""

from __future__ import annotations

import asyncio
import subprocess
from pathlib import Path
from typing import Any

from acp_tray.app.compose import assemble
from acp_tray.files import paths
from acp_tray.prefs.load import read_preferences
from acp_tray.presentation.router import Presentation
from acp_tray.state.history import HistoryWriter, read_history
from tests.support.daemons import DaemonProcess, cli_env
from tests.support.waiting import until, until_async

QUIET = """[severity.info]
route = "none"
[severity.error]
route = "tray"
[dnd]
enabled = true
"""
DEMO = '[agents.demo]\ncommand = ["acp-tray", "demo-agent"]\n[agents.demo.route]\nwarning = "none"\nother = "none"\n'
BROKEN = (QUIET + '[severity.warning]\nroute = "loud"\n', QUIET + "[nope]\nx = 1\n")


async def test_a_fixed_preferences_error_leaves_recent_and_the_screen_and_preferences_applied_is_said(
    tmp_path: Path,
) -> None:
    path = tmp_path / "config.toml"
    path.write_text(QUIET, encoding="utf-8")
    shown: list[Presentation] = []
    withdrawn: list[int] = []
    daemon = assemble(
        read_preferences(path),
        history=HistoryWriter(tmp_path / "history.jsonl"),
        surfaces=[shown.append],
        withdrawers=[withdrawn.append],
        status=lambda status: None,
        prefs_path=path,
    )
    stop = asyncio.Event()
    task = asyncio.create_task(daemon.run(stop))

    def recent() -> list[str]:
        return [item.title for item in daemon.core.publisher.snapshot().recent]

    try:
        await asyncio.sleep(0.5)  # the watcher starts
        assert daemon.core.router.dnd().active
        for count, broken in enumerate(BROKEN, 1):
            path.write_text(broken, encoding="utf-8")

            def said(expected: int = count) -> bool:
                return len(shown) == expected

            await until_async(said, what="the error")
            error = shown[-1]
            assert error.title == "Preferences not applied" and error.notify and error.tray  # DND, tray route
            assert recent() == ["Preferences not applied"]  # the newer error took the older one's place
        assert withdrawn == [shown[0].group]

        path.write_text(QUIET + "# fixed\n", encoding="utf-8")
        await until_async(lambda: len(shown) == 3, what="the fix to be said")
        applied = shown[-1]
        assert applied.title == "Preferences applied" and applied.notify and 0 < applied.timeout <= 5
        assert "right again" in (applied.description or "")
        assert withdrawn == [shown[0].group, shown[1].group]  # the error left the screen
        assert recent() == ["Preferences applied"]  # and Recent
    finally:
        stop.set()
        await asyncio.wait_for(task, 20)
    records = [r for r in read_history(tmp_path / "history.jsonl") if isinstance(r, dict)]
    assert [r["title"] for r in records] == ["Preferences not applied"] * 2 + ["Preferences applied"]
    assert all(r["notified"] and "the answer to what you did" in r["reason"] for r in records)


def displayed(desktop: Any) -> int:
    count = subprocess.run(["dunstctl", "count", "displayed"], env={**cli_env(), **desktop.env}, capture_output=True)
    return int(count.stdout)


def test_during_dnd_with_info_routed_nowhere_the_answers_to_a_save_still_pop_up(
    desktop: Any, daemons: list[DaemonProcess]
) -> None:
    path = paths.config_file()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(QUIET + DEMO, encoding="utf-8")
    daemon = DaemonProcess("run", env=cli_env(**desktop.env, PYSTRAY_BACKEND="xorg", ACP_TRAY_DEMO_INTERVAL="0.05"))
    daemons.append(daemon)
    assert "notifications: freedesktop (dunst" in daemon.wait_for_line("notifications:")
    daemon.wait_for_lines("demo  connected")  # the daemon runs: its watcher follows the file
    desktop.close_all()
    mark = max((item["id"] for item in desktop.history()), default=0)

    def closed() -> list[str]:
        return [item["summary"] for item in desktop.history() if item["id"] > mark]

    path.write_text(BROKEN[0] + DEMO, encoding="utf-8")
    until(lambda: displayed(desktop) == 1, what="the error on screen during DND")
    path.write_text(QUIET + "# fixed\n" + DEMO, encoding="utf-8")
    # the error is taken off the screen by acp-tray itself; "Preferences applied" pops up
    until(lambda: closed() == ["acp-tray: Preferences not applied"], what="the error to be withdrawn")
    until(lambda: displayed(desktop) == 1, what="Preferences applied on screen")
    desktop.close_all()
    until(lambda: closed() == ["acp-tray: Preferences not applied", "acp-tray: Preferences applied"], what="both")
    history = [r for r in read_history(paths.history_file()) if isinstance(r, dict) and r["agent"] == "acp-tray"]
    assert [r["title"] for r in history] == ["Preferences not applied", "Preferences applied"]
    assert daemon.stop() == 0
