"""The daemon in the test's own event loop (no subprocess), on a real preferences file, with real
agent subprocesses: what it presents and the snapshots it hands the tray, recorded."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

from acp_tray.app.actions import Desk
from acp_tray.app.compose import assemble
from acp_tray.app.daemon import Daemon
from acp_tray.app.fleet import Hosting
from acp_tray.backoff import BackoffPolicy
from acp_tray.prefs.load import read_preferences
from acp_tray.prefs.template import DEFAULT_FILE
from acp_tray.presentation.router import Presentation
from acp_tray.state.history import HistoryWriter
from acp_tray.tray.snapshot import TraySnapshot
from tests.support.agents import scripted_command, session_agent_table


def session_agent_config(tmp_path: Path, env: dict[str, str], **settings: Any) -> Path:
    """A preferences file in `tmp_path` with one session agent, `bot` (its `env` and other `settings`)."""
    path = tmp_path / "config.toml"
    path.write_text('notifier = "console"\n' + session_agent_table("bot", env=env, **settings), encoding="utf-8")
    return path


class Running:
    """The daemon running on the preferences file `path`, in a task of the test's loop (`close` ends it)."""

    def __init__(
        self, tmp_path: Path, path: Path, backoff: BackoffPolicy | None = None, desk: Desk | None = None
    ) -> None:
        self.shown: list[Presentation] = []
        self.snapshots: list[TraySnapshot] = []
        self.history_path = tmp_path / "history.jsonl"
        self.daemon = assemble(
            read_preferences(path),
            history=HistoryWriter(self.history_path),
            surfaces=[self.shown.append],
            status=lambda event: None,
            publishers=[self.snapshots.append],
            prefs_path=path,
            hosting=Hosting(backoff=backoff or BackoffPolicy()),
            desk=desk,
        )
        self.stop = asyncio.Event()
        self.task = asyncio.create_task(self.daemon.run(self.stop))

    def titles(self) -> list[str]:
        return [f"{p.agent}: {p.title}" for p in self.shown]

    async def close(self) -> None:
        self.stop.set()
        await asyncio.wait_for(self.task, 20)


def start_in_process(
    tmp_path: Path, path: Path, desk: Desk | None = None
) -> tuple[Daemon, list[TraySnapshot], list[Presentation], asyncio.Event, asyncio.Task[None]]:
    """A daemon on a real preferences file, recording its snapshots and what it presents: the parts of
    `Running` a test uses, unpacked."""
    run = Running(tmp_path, path, desk=desk)
    return run.daemon, run.snapshots, run.shown, run.stop, run.task


def scripted_agent_config(tmp_path: Path, steps: list[dict[str, Any]]) -> Path:
    """The default preferences file with one scripted agent, `bot`, playing `steps` (its demo agent left out)."""
    path = tmp_path / "config.toml"
    agent = (
        "\n[agents.bot]\n"
        f"command = {json.dumps(scripted_command())}\n"
        f"env = {{ SCRIPTED_AGENT_STEPS = {json.dumps(json.dumps(steps))} }}\n"
    )
    path.write_text(DEFAULT_FILE.split("[agents.demo]")[0] + agent, encoding="utf-8")
    return path
