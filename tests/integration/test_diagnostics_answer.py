"""The tray's "Diagnostics…" opens the window (`acp-tray ui --page diagnostics`, a real process);
when the window cannot open, the person who chose it is told why and how to run the same checks,
whatever the routes and DND say (here: no daemon serves the control API the window needs)."""

from __future__ import annotations

from pathlib import Path

from acp_tray.presentation.actions import OpenWindow
from acp_tray.state.history import read_history
from tests.support.in_process import Running
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
    run = Running(tmp_path, path)
    try:
        run.daemon.tray.on_choice(OpenWindow("diagnostics").encode())
        await until_async(lambda: run.shown, 60, "the answer")
    finally:
        await run.close()
    (answer,) = run.shown
    assert (answer.title, answer.severity, answer.notify, answer.tray) == (
        "The acp-tray window did not open",
        "error",
        True,
        True,
    )
    assert "acp-tray doctor" in (answer.description or ""), answer.description
    (record,) = [r for r in read_history(run.history_path) if isinstance(r, dict)]
    assert "the answer to what you did" in record["reason"]
