"""Fault: the preferences file is deleted under the running daemon, then replaced (an atomic
rename, as editors and config tools save) by a valid file, then by an invalid one.

The daemon keeps the last good settings while the file is gone, applies a valid replacement
(seen in the `route` the history records for the next notice), reports an invalid one as its own
error notice "Preferences not applied" and keeps the last good settings, and never writes the
person's file (not recreated after the delete, not "repaired" after the bad save).
"""

from __future__ import annotations

import asyncio
import os
from pathlib import Path

from acp_tray.app.compose import assemble
from acp_tray.prefs.load import read_preferences
from acp_tray.state.history import HistoryWriter, read_history
from tests.faults.faultkit import agent_pid, agent_table
from tests.support.config import history, write_config
from tests.support.daemons import DaemonProcess, cli, start
from tests.support.waiting import until


def replace_atomically(path: Path, text: str) -> os.stat_result:
    """Write a sibling file and rename it over `path`, as editors do; the new file's stat."""
    temporary = path.with_name(f".{path.name}.new")
    temporary.write_text(text, encoding="utf-8")
    os.replace(temporary, path)
    return path.stat()


def notice_route(title: str) -> str:
    """Send a warning notice through the agent; the route the daemon recorded for it."""
    result = cli("prompt", "sa", "notice", title)
    assert result.returncode == 0, result.stderr
    records = until(lambda: [r for r in history() if r["source"] == "agent" and r["title"] == title], what=title)
    assert len(records) == 1
    return str(records[0]["route"])


def prefs_errors() -> list[dict[str, object]]:
    """acp-tray's own "Preferences not applied" notices in the history (source acp-tray)."""
    return [r for r in history() if r["agent"] == "acp-tray" and r["title"] == "Preferences not applied"]


def test_prefs_deleted_then_replaced_valid_then_invalid(daemons: list[DaemonProcess], tmp_path: Path) -> None:
    agents = agent_table("sa", tmp_path / "sa.log")
    path = write_config('[severity.warning]\nroute = "both"\n\n' + agents)
    daemon = start(daemons, "sa", verbose=True)
    pid = agent_pid(daemon, "sa")
    assert notice_route("before the delete") == "both"

    # deleted: the last good settings stay, and the daemon does not write the file back
    path.unlink()
    until(lambda: prefs_errors(), what="the deletion to be seen")
    assert "no such file" in str(prefs_errors()[-1]["description"])
    assert notice_route("while the file is gone") == "both"
    assert not path.exists()

    # replaced by a valid file: applied
    reloads = sum("preferences reloaded" in line for line in daemon.err_lines)
    valid = '# saved by a tool\n[severity.warning]\nroute = "tray"\n\n' + agents
    replace_atomically(path, 'notifier = "console"\n' + valid)
    daemon.wait_for_stderr("preferences reloaded", occurrences=reloads + 1)
    assert notice_route("after a valid replacement") == "tray"

    # replaced by an invalid file: reported, last good settings kept, file left as saved
    errors = len(prefs_errors())
    invalid = 'notifier = "console"\n[severity.warning]\nroute = "loud"\n\n' + agents
    saved = replace_atomically(path, invalid)
    until(lambda: len(prefs_errors()) > errors, what="the invalid file to be reported")
    report = prefs_errors()[-1]
    assert report["severity"] == "error" and report["agent"] == "acp-tray"
    assert f"{path}:" in str(report["description"]) and "`route` in [severity.warning] must be one of" in str(
        report["description"]
    )
    assert "The last good settings stay in force." in str(report["description"])
    assert notice_route("after an invalid replacement") == "tray"
    assert path.read_text(encoding="utf-8") == invalid and path.stat().st_ino == saved.st_ino  # left as saved

    # and the watcher still follows the file: a good save after the bad one applies
    reloads = sum("preferences reloaded" in line for line in daemon.err_lines)
    last = 'notifier = "console"\n[severity.warning]\nroute = "none"\n\n' + agents
    saved = replace_atomically(path, last)
    daemon.wait_for_stderr("preferences reloaded", occurrences=reloads + 1)
    assert notice_route("after a second valid replacement") == "none"

    # the person's file was never rewritten by the daemon
    assert path.read_text(encoding="utf-8") == last and path.stat().st_ino == saved.st_ino
    assert sorted(p.name for p in path.parent.iterdir()) == [path.name]  # no copies, backups or temporaries
    assert agent_pid(daemon, "sa") == pid  # the agent table never changed: never restarted
    assert daemon.proc.poll() is None
    assert cli("quit").returncode == 0
    assert daemon.proc.wait(15) == 0
    assert path.read_text(encoding="utf-8") == last and path.stat().st_mtime_ns == saved.st_mtime_ns  # nor on exit


async def test_preferences_not_applied_is_recorded_as_acp_trays_own_notice(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    path.write_text('notifier = "console"\n', encoding="utf-8")
    history_path = tmp_path / "history.jsonl"
    daemon = assemble(
        read_preferences(path),
        history=HistoryWriter(history_path),
        surfaces=[],
        status=lambda event: None,
        prefs_path=path,
    )
    stop = asyncio.Event()
    task = asyncio.create_task(daemon.run(stop))
    try:
        await asyncio.sleep(0.5)  # the watcher starts
        replace_atomically(path, '[severity.warning]\nroute = "loud"\n')
        for _ in range(200):
            records = [r for r in read_history(history_path) if isinstance(r, dict)]
            if records:
                break
            await asyncio.sleep(0.05)
    finally:
        stop.set()
        await asyncio.wait_for(task, 20)
    (record,) = records
    assert record["agent"] == "acp-tray" and record["title"] == "Preferences not applied"
    assert record["source"] == "acp-tray", record
