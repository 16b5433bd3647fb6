"""One connection's live sessions: by key (agent, cwd, name) and by the agent's session id.

An agent's session ids are unique only within one connection (the demo agent numbers them from 1
in every process). Updates are routed by id, so one id is one session here: when the agent gives
a live session's id to another one (the first was reattached by an id from an earlier process,
which the agent accepted without knowing it), the first is detached and its prompts fail with
the reason, instead of the two sharing each other's replies and turn ends.

A subagent's session (a child the agent announced with `subagent_update`) is not one of ours: its
updates and requests are its parent's work, found here by the child's id (`owner`).
"""

from __future__ import annotations

import logging

from acp_tray.agents.sessions import SessionKey
from acp_tray.agents.turns import HostedSession, PromptJob


class LiveSessions(dict[SessionKey, HostedSession]):
    def __init__(self, log: logging.Logger) -> None:
        super().__init__()
        self.by_id: dict[str, HostedSession] = {}
        self.children: dict[str, HostedSession] = {}  # a subagent's session id -> the session it works under
        self._log = log

    def owner(self, session_id: str) -> HostedSession | None:
        """The session `session_id` is, or the one whose subagent it is."""
        return self.by_id.get(session_id) or self.children.get(session_id)

    def child_label(self, session_id: str) -> str:
        """The subagent's name when `session_id` is a child session, else ""."""
        parent = self.children.get(session_id)
        child = parent.activity.children.get(session_id) if parent is not None else None
        return child.label if child is not None else ""

    def add(self, session: HostedSession) -> None:
        clash = self.by_id.get(session.session_id)
        if clash is not None and clash.key != session.key:
            name, other = session.key.name, clash.key.name
            self._log.warning(
                "the agent gave session id %s to session %r as well as %r; %r is detached",
                session.session_id,
                name,
                other,
                other,
            )
            self.pop(clash.key, None)
            clash.close(f"the agent gave its session id to session '{name}'")
        self[session.key] = session
        self.by_id[session.session_id] = session

    def find_job(self, job_id: str) -> tuple[HostedSession, PromptJob] | None:
        for session in self.values():
            for job in session.jobs():
                if job.job_id == job_id:
                    return session, job
        return None

    def close_all(self, reason: str) -> None:
        """The connection is gone: every session's prompts fail with `reason`."""
        for session in self.values():
            session.close(reason)
        self.clear()
        self.by_id.clear()
        self.children.clear()
