"""Prompts sent with `--no-wait` that wait for their session to open (most often behind a sign-in):
listed by `sessions` and `status` until they are in it, and failed with plain words when their
agent is removed (they would otherwise wait for an agent that is gone)."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass

from acp_tray.agents.turns import PromptJob
from acp_tray.events import Event, TurnEnded
from acp_tray.prefs.names import pasteable


@dataclass(frozen=True)
class WaitingPrompt:
    agent: str
    session: str  # its name
    cwd: str | None  # None: the agent's own
    job: PromptJob
    task: asyncio.Task[None]  # what waits for the session, then hands it the prompt


class WaitingPrompts:
    def __init__(self, report: Callable[[Event], None]) -> None:
        self._report = report
        self._waiting: dict[str, WaitingPrompt] = {}  # by job id

    def waiting(self, agent: str, session: str, cwd: str | None, job: PromptJob) -> None:
        """The prompt `job` waits, in the task running now, for `session` of `agent` to open."""
        task = asyncio.current_task()
        assert task is not None
        self._waiting[job.job_id] = WaitingPrompt(agent, session, cwd, job, task)

    def done(self, job: PromptJob) -> None:
        """It is in its session now, or failed."""
        self._waiting.pop(job.job_id, None)

    def all(self) -> list[WaitingPrompt]:
        return list(self._waiting.values())

    def of(self, agent: str) -> int:
        return sum(w.agent == agent for w in self._waiting.values())

    def removed(self, agent: str) -> None:
        """`agent` was removed: its waiting prompts end, each said (nobody is waiting on the reply)."""
        for prompt in [w for w in self._waiting.values() if w.agent == agent]:
            self.done(prompt.job)
            prompt.task.cancel()
            why = (
                f"{agent} was removed (`{pasteable('agents', 'remove', agent)}`) before prompt {prompt.job.job_id} "
                "could be sent; it was not sent"
            )
            self._report(TurnEnded(agent, "", prompt.session, None, why))
