"""The preferences watcher on real files: woken only by a change, once per save, through symlinks.

The wake-ups are counted as the kernel counts them (context switches of the watching process's
threads, `tests.support.wakeups`), over a window in which nothing changes: a watcher that polls (as
watchfiles did, every 50 ms) switches dozens of times; one woken by inotify does not switch at all.
"""

from __future__ import annotations

import asyncio
import logging
import os
import sys
import time
from pathlib import Path

import pytest

from acp_tray.prefs.watch import watch_file
from tests.support.daemons import DaemonProcess
from tests.support.wakeups import switches, wakeups

pytestmark = pytest.mark.skipif(sys.platform != "linux", reason="the tick-free watcher is Linux's (inotify)")

QUIET_WINDOW = 2.0  # s in which nothing changes (a count of wake-ups is asserted, never a duration)
MOST_WAKEUPS = 2  # an idle watcher: none expected; a polling one has dozens

WATCHER = """
import asyncio, sys
from pathlib import Path
from acp_tray.prefs.watch import watch_file

async def main():
    task = asyncio.create_task(watch_file(Path(sys.argv[1]), lambda: print("changed", flush=True), asyncio.Event()))
    await asyncio.sleep(0.5)  # the watch is set up
    print("watching", flush=True)
    await task

asyncio.run(main())
"""


def test_an_idle_watcher_never_wakes_and_still_sees_the_edit(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    path.write_text("[dnd]\nenabled = false\n", encoding="utf-8")
    watcher = DaemonProcess(str(path), program=[sys.executable, "-c", WATCHER])
    try:
        watcher.wait_for_line("watching")
        before = switches(watcher.proc.pid)
        time.sleep(QUIET_WINDOW)
        idle = wakeups(before, switches(watcher.proc.pid))
        assert idle <= MOST_WAKEUPS, f"the watcher woke {idle} times in {QUIET_WINDOW:g} s with nothing changed"
        path.write_text("[dnd]\nenabled = true\n", encoding="utf-8")
        watcher.wait_for_line("changed")
    finally:
        watcher.proc.kill()
        watcher.proc.wait()


class Changes:
    """Counts the watcher's calls and lets a test wait for the next one."""

    def __init__(self) -> None:
        self.count = 0
        self._changed = asyncio.Event()

    def __call__(self) -> None:
        self.count += 1
        self._changed.set()

    async def wait(self, count: int) -> None:
        async def loop() -> None:
            while self.count < count:
                self._changed.clear()
                await self._changed.wait()

        await asyncio.wait_for(loop(), 10)


async def watching(path: Path, changes: Changes) -> tuple[asyncio.Task[None], asyncio.Event]:
    stop = asyncio.Event()
    task = asyncio.create_task(watch_file(path, changes, stop))
    await asyncio.sleep(0.2)  # the watch is set up
    return task, stop


async def test_one_save_in_several_writes_is_one_call_and_other_files_are_ignored(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    path.write_text("", encoding="utf-8")
    changes = Changes()
    task, stop = await watching(path, changes)
    (tmp_path / "history.jsonl").write_text("{}\n", encoding="utf-8")  # a neighbour: not a change
    with path.open("w", encoding="utf-8") as handle:  # truncate, three writes, close: one save
        for line in ("[dnd]\n", "enabled = true\n", "# done\n"):
            handle.write(line)
            handle.flush()
            os.fsync(handle.fileno())
    await changes.wait(1)
    temporary = tmp_path / ".config.toml.new"  # saved as editors do: a copy renamed over it
    temporary.write_text("[dnd]\nenabled = false\n", encoding="utf-8")
    os.replace(temporary, path)
    await changes.wait(2)
    assert changes.count == 2  # had the first save been several calls, they would have come before the second
    stop.set()
    await asyncio.wait_for(task, 5)


async def test_a_symlink_is_followed_to_its_target_and_to_a_new_target(tmp_path: Path) -> None:
    dotfiles, elsewhere, config = tmp_path / "dotfiles", tmp_path / "elsewhere", tmp_path / "config"
    for directory in (dotfiles, elsewhere, config):
        directory.mkdir()
    first, second = dotfiles / "acp-tray.toml", elsewhere / "acp-tray.toml"
    first.write_text("", encoding="utf-8")
    second.write_text("", encoding="utf-8")
    link = config / "config.toml"
    link.symlink_to(first)
    changes = Changes()
    task, stop = await watching(link, changes)

    first.write_text("[dnd]\nenabled = true\n", encoding="utf-8")  # the target, in another directory
    await changes.wait(1)
    repointed = config / ".config.toml.new"  # the link pointed elsewhere, as `ln -sf` does
    repointed.symlink_to(second)
    os.replace(repointed, link)
    await changes.wait(2)
    second.write_text("[dnd]\nenabled = false\n", encoding="utf-8")  # the new target
    await changes.wait(3)
    first.write_text("# no longer linked\n", encoding="utf-8")
    second.write_text("[dnd]\nenabled = true\n", encoding="utf-8")
    await changes.wait(4)
    assert changes.count == 4  # the old target's edit came first and was not a change
    stop.set()
    await asyncio.wait_for(task, 5)


async def test_the_directory_removed_ends_the_watch_with_a_warning(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    directory = tmp_path / "acp-tray"
    directory.mkdir()
    path = directory / "config.toml"
    path.write_text("", encoding="utf-8")
    task, _stop = await watching(path, Changes())
    with caplog.at_level(logging.WARNING, logger="acp_tray.prefs.watch"):
        path.unlink()
        directory.rmdir()
        await asyncio.wait_for(task, 10)
    assert f"no longer watching {path} for changes" in caplog.text
    assert "restart acp-tray to pick up edits" in caplog.text


@pytest.mark.skipif(sys.platform != "linux", reason="the inotify watcher is Linux's")
async def test_a_watcher_that_is_not_installed_is_said_not_raised_at_quit(
    tmp_path: Path, caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A venv made before the watcher became a dependency: the daemon says edits are not picked up
    (once, at start) instead of ending in a traceback when it stops."""
    monkeypatch.setitem(sys.modules, "asyncinotify", None)  # import fails as when it is not installed
    path = tmp_path / "config.toml"
    path.write_text("", encoding="utf-8")
    with caplog.at_level(logging.WARNING, logger="acp_tray.prefs.watch"):
        task, _stop = await watching(path, Changes())
        await asyncio.wait_for(task, 10)  # ended by itself, without raising
    assert f"no longer watching {path} for changes" in caplog.text and "asyncinotify" in caplog.text
