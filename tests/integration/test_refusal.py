"""A live agent that answers `session/new` with an error refused: it is not a crash. One error
notice with the agent's own words, state `refused`, no relaunch until the person acts."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

from acp_tray.backoff import BackoffPolicy
from acp_tray.events import AgentState
from tests.support.in_process import Running, session_agent_config
from tests.support.waiting import until_async

REFUSAL = "Query closed before response received"


def session_news(log: Path) -> int:
    if not log.exists():
        return 0
    return sum(json.loads(line)["method"] == "session/new" for line in log.read_text().splitlines())


async def test_a_refusal_is_one_error_notice_and_no_relaunch_until_restart(tmp_path: Path) -> None:
    log = tmp_path / "agent.log"
    path = session_agent_config(tmp_path, {"SESSION_AGENT_REFUSE": REFUSAL, "SESSION_AGENT_LOG": str(log)})
    run = Running(tmp_path, path, BackoffPolicy(initial=0.05, maximum=0.1, fast=10.0, give_up_after=5))
    try:
        await until_async(lambda: "bot: Refused to work" in run.titles())
        state = run.daemon.core.fleet.states["bot"]
        assert state.state is AgentState.REFUSED and REFUSAL in state.detail
        (notice,) = [p for p in run.shown if p.title == "Refused to work"]
        assert notice.severity == "error" and REFUSAL in (notice.description or "")
        assert "acp-tray agents restart bot" in (notice.description or "")
        # the hint: its stderr's meaningful line, without the colour codes; not the `}` ending its dump
        hint = 'last stderr: refusing: setting up the model failed | "code": 1\n'
        assert hint in (notice.description or "")
        assert "\x1b" not in (notice.description or "") and "[2m" not in (notice.description or "")
        await asyncio.sleep(1.0)  # with a 50 ms backoff a crash would have been relaunched several times by now
        assert session_news(log) == 1
        assert not [t for t in run.titles() if "Crashed" in t or "Keeps crashing" in t]
        assert not run.daemon.core.fleet.supervised("bot")
        # `agents restart` (and a sign-in: Daemon.retry_agent) asks again
        run.daemon.core.fleet.agent_action("restart", "bot")
        await until_async(lambda: run.titles().count("bot: Refused to work") == 2)
        assert session_news(log) == 2
    finally:
        await run.close()
