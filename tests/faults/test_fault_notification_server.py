"""Fault: the notification server (dunst) is killed under a running daemon, then started again.

Notices must keep being presented (on the console, the last backend) and recorded, with the
fallback logged; once the server is back and the retry interval has passed, notices reach it again.

The retry interval is `RETRY_AFTER` = 30 s in notifiers/chain.py, and neither the preferences nor
the environment can change it (a testability gap). The daemon here is the real `acp_tray.cli.main`,
started through `short_retry_acp_tray.py`, which only sets that default to 2 s.
"""

from __future__ import annotations

import asyncio
import io
import logging
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from acp_tray.notifiers.chain import NotifierChain
from acp_tray.notifiers.console import ConsoleBackend, ConsoleNotifier
from acp_tray.notifiers.freedesktop import FreedesktopBackend
from tests.faults.faultkit import HERE, agent_table
from tests.support.config import history, write_config
from tests.support.daemons import DaemonProcess, cli, cli_env
from tests.support.presentations import make_presentation as presentation

RETRY_AFTER = 2.0


def shown_on_dunst(desktop: Any, mark: int, summary: str, timeout: float = 10.0) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if any(item["summary"] == summary for item in desktop.since(mark)):
            return True
        time.sleep(0.2)
    return False


def on_console(daemon: DaemonProcess, text: str, timeout: float = 5.0) -> bool:
    try:
        daemon.wait_for_line(text, timeout=timeout)
    except AssertionError:
        return False
    return True


@pytest.mark.parametrize(
    "notifier",
    [
        "freedesktop",
        pytest.param(
            "auto",
        ),
    ],
)
def test_server_killed_falls_back_to_the_console_and_recovers(
    notifier: str, desktop: Any, daemons: list[DaemonProcess], tmp_path: Path
) -> None:
    # info (acp-tray's "Finished") stays in the tray: one notification per prompt, never two at
    # once (two at once after the retry interval is the race in the next test)
    write_config(
        '[severity.info]\nroute = "tray"\n\n[rate_limit]\nburst = 50\n\n' + agent_table("sa", tmp_path / "sa.log"),
        notifier=notifier,
    )
    env = cli_env(**desktop.env, ACP_TRAY_TEST_RETRY_AFTER=str(RETRY_AFTER))
    daemon = DaemonProcess("run", "-v", env=env, program=[sys.executable, str(HERE / "short_retry_acp_tray.py")])
    daemons.append(daemon)
    assert "freedesktop (dunst " in daemon.wait_for_line("notifications: ")
    daemon.wait_for_line("  sa  connected")
    desktop.close_all()

    mark = desktop.mark()
    assert cli("prompt", "sa", "notice", "before the kill", env=env).returncode == 0
    assert shown_on_dunst(desktop, mark, "sa: before the kill")

    desktop.kill_dunst()
    try:
        for title in ("while the server is down", "still down"):
            assert cli("prompt", "sa", "notice", title, env=env).returncode == 0
            assert on_console(daemon, f"sa  WARNING  {title}"), f"{title!r} was not presented anywhere"
        daemon.wait_for_stderr("freedesktop notifications failed")
        fallback = next(line for line in daemon.err_lines if "freedesktop notifications failed" in line)
        assert "using the next backend" in fallback and f"retrying freedesktop in {RETRY_AFTER:.0f} s" in fallback
        records = {r["title"]: r for r in history() if r["source"] == "agent"}
        assert records["while the server is down"]["notified"] and records["still down"]["notified"]
    finally:
        desktop.start_dunst()

    time.sleep(RETRY_AFTER + 0.3)
    mark = desktop.mark()
    assert cli("prompt", "sa", "notice", "back on dunst", env=env).returncode == 0
    assert shown_on_dunst(desktop, mark, "sa: back on dunst")
    daemon.wait_for_stderr("freedesktop notifications work again")
    assert not any("back on dunst" in line for line in [*daemon.seen, *list(daemon.lines.queue)])  # not on both
    assert not any("showing a notification failed" in line for line in daemon.err_lines)
    assert cli("quit", env=env).returncode == 0
    assert daemon.proc.wait(15) == 0


async def test_two_notices_at_once_after_the_retry_interval_both_reach_the_server(
    desktop: Any, desktop_env: dict[str, str], caplog: pytest.LogCaptureFixture
) -> None:
    stream = io.StringIO()
    backend = FreedesktopBackend(lambda group, what: None, reply_timeout=1.0)
    chain = NotifierChain([backend, ConsoleBackend(ConsoleNotifier(stream))], retry_after=0.5)
    assert (await chain.start()).startswith("freedesktop")
    desktop.kill_dunst()
    try:
        chain.present(presentation(301, "While the server is down"))
        await chain.drain()
        assert "While the server is down" in stream.getvalue()
    finally:
        desktop.start_dunst()
    mark = desktop.mark()
    await asyncio.sleep(0.6)
    caplog.set_level(logging.WARNING, logger="acp_tray")
    chain.present(presentation(302, "First after the restart"))
    chain.present(presentation(303, "Second after the restart"))
    await chain.drain()
    await asyncio.sleep(0.3)
    await chain.aclose()
    shown = sorted(item["summary"] for item in desktop.since(mark))
    errors = [r.getMessage() for r in caplog.records if r.levelno >= logging.ERROR]
    assert (shown, errors) == (["bot: First after the restart", "bot: Second after the restart"], [])
