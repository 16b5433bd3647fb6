"""The ops that read the daemon's state (status, agents.list, approvals, sessions), and `quit`.
Every reply is bounded whatever the agents send."""

from __future__ import annotations

import asyncio
import os
import time
from pathlib import Path
from typing import TYPE_CHECKING, TypedDict

from acp_tray import __version__
from acp_tray.app.attention import Waiting, waiting
from acp_tray.app.ops.questions import question_rows
from acp_tray.app.ops.usage_rows import cost_rows, limit_rows, title_of, usage_row
from acp_tray.app.ops.waiting import WaitingPrompts
from acp_tray.control.replies import (
    AgentRow,
    ApprovalRow,
    ProblemRow,
    QuitReply,
    SessionFacts,
    SessionRow,
    SignInMethodRow,
    StatusReply,
    SubagentRow,
)
from acp_tray.events import AgentState
from acp_tray.logs.redact import shown_url
from acp_tray.logs.text import DESCRIPTION_LIMIT, bounded
from acp_tray.presentation.approval_details import approval_details

if TYPE_CHECKING:
    from acp_tray.agents.approvals import Approvals
    from acp_tray.agents.questions import Questions
    from acp_tray.agents.signin import SignIn
    from acp_tray.agents.turns import HostedSession
    from acp_tray.app.fleet import Fleet
    from acp_tray.app.lifetime import Lifetime
    from acp_tray.app.publisher import TrayPublisher
    from acp_tray.app.troubles import Trouble
    from acp_tray.app.usage import UsageKeeper
    from acp_tray.presentation.router import Router
    from acp_tray.protocol.auth import AuthMethod

# an approval in a reply: more than a one-line surface shows (an option id must survive whole to be answered)
REPLY_TITLE_LIMIT, REPLY_NAME_LIMIT = 1000, 200
MAX_OPTIONS = 20  # of one approval request, in replies


class StatusOps:
    def __init__(
        self,
        *,
        router: Router,
        fleet: Fleet,
        publisher: TrayPublisher,
        approvals: Approvals,
        questions: Questions,
        usage: UsageKeeper,
        waiting: WaitingPrompts,
        life: Lifetime,
        prefs_path: Path | None,
    ) -> None:
        self._router = router  # the preferences in force, and the clock
        self._fleet = fleet
        self._publisher = publisher  # its snapshot: DND, unread
        self._approvals = approvals
        self._questions = questions
        self._usage = usage
        self._waiting = waiting
        self._life = life  # `quit` ends it
        self._prefs_path = prefs_path
        self._started = time.time()

    async def status(self) -> StatusReply:
        snapshot = self._publisher.snapshot()
        return {
            "version": __version__,
            "pid": os.getpid(),
            "uptime": round(time.time() - self._started, 1),
            "preferences": str(self._prefs_path) if self._prefs_path else None,
            "dnd": snapshot.dnd.describe(),
            "morning": f"{self._router.prefs.dnd.morning:%H:%M}",
            "unread": snapshot.unread,
            "agents": self._agents(),
            "approvals": self._approval_rows(),
            "questions": question_rows(self._questions),
            "today": cost_rows(self._usage.book.all_today(self._usage.day())),
        }

    async def agents(self) -> list[AgentRow]:
        return self._agents()

    async def approvals(self) -> list[ApprovalRow]:
        return self._approval_rows()

    async def sessions(self) -> list[SessionRow]:
        fleet = self._fleet
        store = fleet.store
        rows: dict[tuple[str, str, str], SessionRow] = {}
        for key in store.known():
            if key.agent not in self._router.prefs.agents:
                continue  # an agent no longer configured (its table deleted from the file): not offered
            rows[(key.agent, key.cwd, key.name)] = {
                "agent": key.agent,
                "name": key.name,
                "cwd": key.cwd,
                "session_id": store.get(key),
                "state": "detached",
                "queued": 0,
                "turns": 0,
                **_NOTHING_DOING,
                **self._facts(key.agent, store.get(key)),
                "updated": store.updated(key),
            }
        found = self._waiting_now()
        for host in fleet.hosts.values():
            for key, session in host.sessions.items():
                rows[(key.agent, key.cwd, key.name)] = {
                    "agent": key.agent,
                    "name": key.name,
                    "cwd": key.cwd,
                    "session_id": session.session_id,
                    "state": "running" if session.current is not None else "idle",
                    "queued": session.queued,
                    "turns": session.turns,
                    **_doing(key.agent, session, found),
                    **self._facts(key.agent, session.session_id),
                    "updated": store.updated(key),
                }
        self._add_waiting(rows)
        return [rows[k] for k in sorted(rows)]

    def _waiting_now(self) -> Waiting:
        return waiting(self._fleet.hosts, self._approvals, self._questions)

    def _add_waiting(self, rows: dict[tuple[str, str, str], SessionRow]) -> None:
        """The prompts waiting for their session to open (a sign-in, a start), counted in its row."""
        for prompt in self._waiting.all():
            running = self._fleet.hosts.get(prompt.agent)
            cwd = prompt.cwd or (str(running.spec.cwd) if running is not None else "")
            row = rows.setdefault(
                (prompt.agent, cwd, prompt.session),
                {"agent": prompt.agent, "name": prompt.session, "cwd": cwd, "session_id": None,
                 "state": "waiting", "queued": 0, "turns": 0, "title": None, "compacting": False, "usage": None,
                 "updated": "", **_NOTHING_DOING},
            )  # fmt: skip
            if row["state"] == "detached":
                row["state"] = "waiting"
            row["queued"] += 1

    def _facts(self, agent: str, session_id: str | None) -> SessionFacts:
        """A session's title, compaction and usage as its agent last reported them."""
        figures = self._usage.book.figures(agent, session_id)
        return {
            "title": title_of(figures),
            "compacting": figures is not None and figures.compacting,
            "usage": usage_row(figures),
        }

    async def quit(self) -> QuitReply:
        asyncio.get_running_loop().call_soon(self._life.request_stop)
        return {"stopping": True, "pid": os.getpid()}

    def _agents(self) -> list[AgentRow]:
        fleet = self._fleet
        rows: list[AgentRow] = []
        usage, now = self._usage, self._router.clock.now()
        found = self._waiting_now()
        for name, config in self._router.prefs.agents.items():
            status = fleet.states.get(name)
            host = fleet.hosts.get(name)
            sessions = list(host.sessions.values()) if host is not None else []
            said = host.signin_lines if host is not None else None
            rows.append(
                {
                    "name": name,
                    "kind": "remote" if config.url else "local",
                    "target": shown_url(config.url) if config.url else " ".join(config.command or []),
                    "command": list(config.command or []),
                    "cwd": str(config.cwd) if config.cwd is not None else "",
                    "env_names": sorted(config.env),
                    "state": status.state.value if status else AgentState.STOPPED.value,
                    "detail": status.detail if status else "",
                    "sessions": len(sessions),
                    "busy": sum(s.current is not None for s in sessions),
                    "queued": sum(s.queued for s in sessions) + self._waiting.of(name),
                    "permission": config.permission,
                    "sign_in_methods": sign_in_rows(host.signin if host is not None else None),
                    "needs_you": name in found.agents,
                    "sign_in_links": [{"text": line.text, "url": line.url} for line in said.lines] if said else [],
                    "reads_code": bool(said and said.reads_code),
                    "today": cost_rows(usage.book.agent_today(name, now.date())),
                    "limits": limit_rows(usage.book, name, now),
                    "problem": problem_row(fleet.troubles.of(name)),
                }
            )
        return rows

    def _approval_rows(self) -> list[ApprovalRow]:
        """Bounded whatever the agents send: capped requests, titles, options and their names."""
        return [
            {
                "id": p.approval_id,
                "agent": p.agent,
                "session_id": p.session_id,
                "title": bounded(p.title, REPLY_TITLE_LIMIT),
                "options": [
                    {
                        "id": bounded(o.option_id, REPLY_NAME_LIMIT),
                        "name": bounded(o.name, REPLY_NAME_LIMIT),
                        "kind": o.kind,
                    }
                    for o in p.options[:MAX_OPTIONS]
                ],
                "subagent": p.subagent,
                "details": approval_details(p.scope, p.description),
            }
            for p in self._approvals.pending()
        ]


def problem_row(trouble: Trouble | None) -> ProblemRow | None:
    """An agent's last problem, bounded whatever it wrote."""
    if trouble is None:
        return None
    return {
        "what": bounded(trouble.what, DESCRIPTION_LIMIT),
        "stderr": [bounded(line, DESCRIPTION_LIMIT) for line in trouble.stderr],
        "time": trouble.time.isoformat(timespec="seconds"),
        "crashes": trouble.crashes,
    }


class _Doing(TypedDict):
    needs_you: bool
    progress: str
    silent_since: str | None
    subagents: list[SubagentRow]


_NOTHING_DOING: _Doing = {"needs_you": False, "progress": "", "silent_since": None, "subagents": []}


def _doing(agent: str, session: HostedSession, found: Waiting) -> _Doing:
    """What a live session is doing beyond its queue (agents/activity.py), bounded whatever the agent sends."""
    activity = session.activity
    return {
        "needs_you": found.session(agent, session),
        "progress": bounded(activity.progress, REPLY_NAME_LIMIT),
        "silent_since": activity.silent_since.isoformat() if activity.silent_since is not None else None,
        "subagents": [
            {
                "session_id": bounded(child.session_id, REPLY_NAME_LIMIT),
                "title": child.title,
                "kind": child.kind,
                "state": bounded(child.state, REPLY_NAME_LIMIT),
                "needs_you": child.waiting or (agent, child.session_id) in found.asking,
            }
            for child in activity.children.values()
        ],
    }


def sign_in_rows(signin: SignIn | None) -> list[SignInMethodRow]:
    """The agent's sign-in methods: what each is, whether acp-tray can do it now, what a terminal one
    runs (as it will run, the variables it sets masked for showing), or why it cannot be used."""
    if signin is None:
        return []
    return [sign_in_row(signin, m) for m in signin.methods]


def sign_in_row(signin: SignIn, method: AuthMethod) -> SignInMethodRow:
    command, sets = signin.shown(method)
    row: SignInMethodRow = {
        "id": method.method_id,
        "name": method.name,
        "kind": method.kind,
        "description": method.description,
        "vars": list(method.vars),
        "doable": signin.doable(method),
        "command": list(command),
        "sets": sets,
    }
    if method.unusable is not None:
        row["unusable"] = method.unusable
    return row
