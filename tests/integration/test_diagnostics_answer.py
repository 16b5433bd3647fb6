"""The tray's "Diagnostics…" opens the window (`acp-tray ui --page diagnostics`, a real process);
when the window cannot open, the person who chose it is told why and how to run the same checks,
whatever the routes and DND say (here: no daemon serves the control API the window needs)."""

from __future__ import annotations

import asyncio
from pathlib import Path

from acp_tray.app.compose import assemble
from acp_tray.prefs.load import read_preferences
from acp_tray.presentation.actions import OpenWindow
from acp_tray.presentation.router import Presentation
from acp_tray.state.history import HistoryWriter, read_history
from tests.support.waiting import until_async

SILENT = """[severity.info]
route = "none"
[severity.error]
route = "none"
[dnd]
enabled = true
"""


async def test_a_diagnostics_window_that_cannot_open_is_answered_whatever_the_routes_and_dnd(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    path.write_text(SILENT, encoding="utf-8")
    shown: list[Presentation] = []
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
        daemon.tray_action(OpenWindow("diagnostics").encode())
        await until_async(lambda: shown, 60, "the answer")
    finally:
        stop.set()
        await asyncio.wait_for(task, 20)
    (answer,) = shown
    assert (answer.title, answer.severity, answer.notify, answer.tray) == (
        "The acp-tray window did not open",
        "error",
        True,
        True,
    )
    assert "acp-tray doctor" in (answer.description or ""), answer.description
    (record,) = [r for r in read_history(tmp_path / "history.jsonl") if isinstance(r, dict)]
    assert "the answer to what you did" in record["reason"]
