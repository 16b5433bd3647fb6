"""Crash supervision and approvals through the daemon, in process, with real agent subprocesses.

The backoff is shortened (50 ms) so a crash loop runs in a test's time; the rules are the same.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

from acp_tray.agents.turns import PromptJob
from acp_tray.backoff import BackoffPolicy
from acp_tray.events import AgentState, ReplyText, TurnProgress
from acp_tray.state.history import read_history
from acp_tray.tray.menu import menu_of
from tests.support.in_process import Running, session_agent_config
from tests.support.waiting import until_async


async def test_a_crash_loop_is_retried_with_growing_delays_then_given_up(tmp_path: Path) -> None:
    path = session_agent_config(tmp_path, {"SESSION_AGENT_EXIT_AT_START": "2"})
    run = Running(tmp_path, path, BackoffPolicy(initial=0.05, maximum=1.0, fast=10.0, give_up_after=3))
    try:
        await until_async(lambda: "bot: Keeps crashing; stopped" in run.titles())
        crashes = [p for p in run.shown if p.title == "Crashed"]
        assert [p.severity for p in crashes] == ["warning", "warning"]
        assert "Restarting in 0.05 s" in (crashes[0].description or "")
        assert "Restarting in 0.1 s" in (crashes[1].description or "")  # doubled
        final = next(p for p in run.shown if p.title == "Keeps crashing; stopped")
        assert final.severity == "error" and final.source == "acp-tray"
        assert "exiting at start with 2" in (final.description or "")  # its last stderr lines
        assert "acp-tray agents restart bot" in (final.description or "")
        await asyncio.sleep(0.5)  # given up: no more attempts
        assert run.titles().count("bot: Crashed") == 2
        assert run.daemon.core.fleet.states["bot"].state is AgentState.FAILED
        assert "3 crashes in a row" in run.daemon.core.fleet.states["bot"].detail
        assert not run.daemon.core.fleet.supervised("bot")
        # the tray can start it again, with a fresh count
        run.daemon.core.fleet.agent_action("restart", "bot")
        await until_async(lambda: run.titles().count("bot: Keeps crashing; stopped") == 2)
        records = [r for r in read_history(run.history_path) if isinstance(r, dict)]
        assert [r["title"] for r in records if r["source"] == "acp-tray"].count("Crashed") == 4
    finally:
        await run.close()


async def test_an_approval_from_the_tray_reaches_the_agent_and_a_dismissal_does_not(tmp_path: Path) -> None:
    log = tmp_path / "agent.log"
    path = session_agent_config(tmp_path, {"SESSION_AGENT_LOG": str(log)})
    run = Running(tmp_path, path, BackoffPolicy())
    try:
        await until_async(lambda: run.daemon.core.fleet.hosts["bot"].connected.is_set())
        session = await run.daemon.core.fleet.hosts["bot"].open_session()
        chunks: list[TurnProgress] = []
        job = PromptJob(session.key, "ask", stream=chunks.append)
        session.submit(job)
        await until_async(lambda: run.snapshots and run.snapshots[-1].approvals)
        (row,) = run.snapshots[-1].approvals
        entries = [e for e in menu_of(run.snapshots[-1]) if e.label.startswith("Needs you")]
        assert entries, "the tray menu offers the approval"
        asked = next(p for p in run.shown if p.title == "Needs approval")
        assert ("approval:" + row.approval_id + ":allow", "✔ Allow once") in asked.actions
        before = log.read_text()
        run.daemon.core.notifications.on_notification(asked.group, "closed")  # dismissed: nothing is answered
        await asyncio.sleep(0.3)
        assert log.read_text() == before and not job.result.done()
        assert run.snapshots[-1].approvals  # still waiting
        run.daemon.tray.on_choice(f"approval:{row.approval_id}:reject")
        outcome = await asyncio.wait_for(job.result, 10)
        assert outcome.stop_reason == "end_turn"
        assert ReplyText("outcome=reject") in chunks
        await until_async(lambda: not run.snapshots[-1].approvals)
    finally:
        await run.close()
