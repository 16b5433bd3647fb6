"""Who waits for the person: a session whose agent says it is blocked on them (`requires_action`),
or one of whose subagents is, or that has an approval or a question open (its own or a subagent's,
in ACP 1 too); an agent waits while one of its sessions does, or a request of it is open. Read by
the status replies and the tray alike, from the hosts and the pending requests as they are now."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime

from acp_tray.agents.approvals import Approvals
from acp_tray.agents.host import AgentHost
from acp_tray.agents.questions import Questions
from acp_tray.agents.turns import HostedSession
from acp_tray.presentation.doing import silence_words, subagent_words


@dataclass(frozen=True)
class Waiting:
    """The (agent, session id) pairs with a request open, and the agents waiting for the person."""

    asking: frozenset[tuple[str, str]]
    agents: frozenset[str]

    def session(self, agent: str, session: HostedSession) -> bool:
        """Whether `session` (or one of its subagents) waits for the person."""
        if session.activity.waiting:
            return True
        return any((agent, sid) in self.asking for sid in (session.session_id, *session.activity.children))


def waiting(hosts: Mapping[str, AgentHost], approvals: Approvals, questions: Questions) -> Waiting:
    asking = {(p.agent, p.session_id) for p in approvals.pending()}
    asking |= {(q.agent, q.question.session_id) for q in questions.pending()}
    agents = {agent for agent, _ in asking}
    found = Waiting(frozenset(asking), frozenset())
    for name, host in hosts.items():
        if any(found.session(name, s) for s in host.sessions.values()):
            agents.add(name)
    return Waiting(found.asking, frozenset(agents))


def doing_lines(host: AgentHost, found: Waiting, now: datetime) -> tuple[str, ...]:
    """What the agent's sessions are doing, a line each: progress, a silence, each subagent."""
    lines: list[str] = []
    for key, session in host.sessions.items():
        where = "" if key.name == "default" else f"{key.name}: "
        activity = session.activity
        if activity.progress:
            lines.append(f"{where}{activity.progress}")
        if activity.silent_since is not None:
            lines.append(f"{where}{silence_words(activity.silent_since, now)}")
        for child in activity.children.values():
            needs_you = child.waiting or (host.name, child.session_id) in found.asking
            lines.append(f"› {where}{subagent_words(child.title, child.kind, child.state, needs_you)}")
    return tuple(lines)
