"""Preferences change under a running daemon: hot reload, bad edits, DND from the CLI."""

from __future__ import annotations

import asyncio
import contextlib
import json
import subprocess
import sys
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

from acp_tray.app.compose import assemble
from acp_tray.app.daemon import Daemon
from acp_tray.prefs.load import read_preferences
from acp_tray.presentation.router import Presentation
from acp_tray.state.history import HistoryWriter, read_history
from tests.support.agents import scripted_command
from tests.support.daemons import DaemonProcess, cli_env
from tests.support.waiting import until_async


@contextlib.asynccontextmanager
async def running(path: Path, tmp_path: Path, shown: list[Presentation]) -> AsyncIterator[Daemon]:
    """A daemon in this process on the preferences file `path`, its watcher started."""
    daemon = assemble(
        read_preferences(path),
        history=HistoryWriter(tmp_path / "history.jsonl"),
        surfaces=[shown.append],
        status=lambda status: None,
        prefs_path=path,
    )
    stop = asyncio.Event()
    task = asyncio.create_task(daemon.run(stop))
    try:
        await asyncio.sleep(0.5)  # let the watcher start
        yield daemon
    finally:
        stop.set()
        await asyncio.wait_for(task, 20)


async def test_hot_reload_applies_good_edits_and_keeps_last_good_on_bad_ones(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    path.write_text('[severity.info]\nroute = "both"\n', encoding="utf-8")
    shown: list[Presentation] = []
    async with running(path, tmp_path, shown) as daemon:
        path.write_text('# edited\n[severity.info]\nroute = "tray"\n', encoding="utf-8")
        await until_async(lambda: daemon.core.router.prefs.severity.info.route == "tray")
        # the save is answered, on screen although info now goes to the tray only
        await until_async(lambda: [p.title for p in shown] == ["Preferences applied"])
        assert shown[0].notify and shown[0].tray

        good = daemon.core.router.prefs
        for broken in ('[severity.info]\nroute = "loud"\n', "[severity.info\n", "[nope]\nx = 1\n"):
            path.write_text(broken, encoding="utf-8")
            count = len(shown)

            def grown(before: int = count) -> bool:
                return len(shown) > before

            await until_async(grown)  # the local notice from acp-tray itself
            assert daemon.core.router.prefs == good  # the last good settings stay in force
            assert path.read_text(encoding="utf-8") == broken  # and the file is left as the person saved it
            report = shown[-1]
            assert report.agent == "acp-tray" and report.severity == "error" and report.notify
            assert report.title == "Preferences not applied" and str(path) in (report.description or "")

        path.unlink()  # deleted mid-run: reported, settings kept
        count = len(shown)
        await until_async(lambda: len(shown) > count)
        assert "no such file" in (shown[-1].description or "") and daemon.core.router.prefs == good
    records = [r for r in read_history(tmp_path / "history.jsonl") if isinstance(r, dict)]
    assert [r["agent"] for r in records] == ["acp-tray"] * 5
    assert [r["title"] for r in records] == ["Preferences applied"] + ["Preferences not applied"] * 4


async def test_an_edit_right_after_acp_tray_wrote_the_file_is_applied_even_with_the_same_size_and_time(
    tmp_path: Path,
) -> None:
    """acp-tray writes the file (the tray's DND) and applies it; a save of the same size in the same
    timestamp tick (a coarse clock, or a filesystem that keeps seconds) is still a change: what
    was applied is known by content, not by size and time."""
    import os

    from acp_tray.prefs.write import set_dnd

    path = tmp_path / "config.toml"
    path.write_text('[severity.info]\nroute = "both"\n', encoding="utf-8")
    async with running(path, tmp_path, []) as daemon:
        daemon.core.reloader.change_prefs(lambda file: set_dnd(file, enabled=True, until=None))
        assert daemon.core.router.dnd().active
        written = path.stat()
        edited = path.read_text(encoding="utf-8").replace('route = "both"', 'route = "tray"')
        assert len(edited) == written.st_size  # the same size ...
        path.write_text(edited, encoding="utf-8")
        os.utime(path, ns=(written.st_atime_ns, written.st_mtime_ns))  # ... and the same time
        await until_async(lambda: daemon.core.router.prefs.severity.info.route == "tray")
        assert daemon.core.router.dnd().active


def test_editing_the_file_changes_the_routing_of_the_next_notice(tmp_path: Path) -> None:
    go1, go2 = tmp_path / "go1", tmp_path / "go2"
    steps = [
        {"update": {"sessionUpdate": "notice", "severity": "info", "title": "first info"}},
        {"wait_file": str(go1)},
        {"update": {"sessionUpdate": "notice", "severity": "info", "title": "second info"}},
        {"update": {"sessionUpdate": "notice", "severity": "error", "title": "marker one"}},
        {"wait_file": str(go2)},
        {"update": {"sessionUpdate": "notice", "severity": "warning", "title": "during dnd"}},
        {"update": {"sessionUpdate": "notice", "severity": "error", "title": "marker two"}},
    ]
    config = tmp_path / "config.toml"
    agent = (
        "[agents.bot]\n"
        f"command = {json.dumps(scripted_command())}\n"
        f"env = {{ SCRIPTED_AGENT_STEPS = {json.dumps(json.dumps(steps))} }}\n"
    )
    config.write_text('[dnd]\nallow = ["error"]  # errors break through\n\n' + agent, encoding="utf-8")
    daemon = DaemonProcess("run", "--headless", "--config", str(config), "-v")
    try:
        daemon.wait_for_line("first info")
        # the person routes info to the tray only
        config.write_text('[dnd]\nallow = ["error"]  # errors break through\n[severity.info]\nroute = "tray"\n' + agent)
        daemon.wait_for_stderr("preferences reloaded")
        go1.touch()
        daemon.wait_for_line("marker one")
        assert not any("second info" in line for line in daemon.seen)
        # DND switched on from the CLI while the daemon runs
        result = subprocess.run(
            [sys.executable, "-m", "acp_tray", "dnd", "for", "1h", "--config", str(config)],
            capture_output=True,
            text=True,
            env=cli_env(),
            check=True,
        )
        assert result.stdout.startswith("do not disturb: on until")
        assert "# errors break through" in config.read_text()  # the person's comment survives
        daemon.wait_for_stderr("do not disturb: on until")
        go2.touch()
        daemon.wait_for_line("marker two")
        assert not any("during dnd" in line for line in daemon.seen)
        assert daemon.stop() == 0
    finally:
        if daemon.proc.poll() is None:
            daemon.proc.kill()
    records = _wait_for_history(lambda records: len(records) >= 5)
    routing = {r["title"]: (r["route"], r["suppressed"], r["notified"], r["tray"]) for r in records}
    assert routing["first info"] == ("both", None, True, True)
    assert routing["second info"] == ("tray", None, False, True)
    assert routing["during dnd"] == ("both", "dnd", False, True)
    assert routing["marker two"] == ("both", None, True, True)  # allowed through DND


def _wait_for_history(predicate: Any, timeout: float = 10.0) -> list[dict[str, Any]]:
    import time

    from acp_tray.files import paths

    deadline = time.monotonic() + timeout
    records: list[dict[str, Any]] = []
    while time.monotonic() < deadline:
        records = [r for r in read_history(paths.history_file()) if isinstance(r, dict)]
        if predicate(records):
            break
        time.sleep(0.1)
    return records


def test_dnd_from_the_cli_is_in_force_when_the_command_returns(tmp_path: Path) -> None:
    """`acp-tray dnd on` and at once `acp-tray status`: the daemon says "on" (it applies the file
    the CLI wrote when the CLI asks, not only once its watcher saw the file settle), and applies
    each change once (the watcher's later look finds it applied)."""
    from tests.support.daemons import cli
    from tests.support.waiting import until

    config = tmp_path / "config.toml"
    config.write_text("# mine\n", encoding="utf-8")
    daemon = DaemonProcess("run", "--headless", "--config", str(config), "-v")
    try:
        until(lambda: cli("status").returncode == 0, what="the daemon to answer")
        for turn in range(3):
            assert cli("dnd", "on", "--config", str(config)).stdout.startswith("do not disturb: on")
            assert json.loads(cli("status", "--json").stdout)["dnd"] == "on", f"turn {turn}"
            assert cli("dnd", "for", "2h", "--config", str(config)).stdout.startswith("do not disturb: on until")
            assert json.loads(cli("status", "--json").stdout)["dnd"].startswith("on until"), f"turn {turn}"
            assert cli("dnd", "off", "--config", str(config)).stdout == "do not disturb: off\n"
            assert json.loads(cli("status", "--json").stdout)["dnd"] == "off", f"turn {turn}"
        import time

        time.sleep(1.5)  # the watcher's own look (debounce, then 0.5 s still) has come and gone
        assert daemon.proc.poll() is None
    finally:
        daemon.stop()
    reloads = [line for line in daemon.err_lines if "preferences reloaded" in line]
    assert len(reloads) == 9, reloads  # once per change, not again when the watcher sees it
    assert config.read_text(encoding="utf-8").startswith("# mine\n")
