"""Who waits for the person: a session whose agent says it is blocked on them (`requires_action`),
or one of whose subagents is, or that has an approval or a question open (its own or a subagent's,
in ACP 1 too); an agent waits while one of its sessions does, or a request of it is open. Read by
the status replies and the tray alike, from the hosts and the pending requests as they are now."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from acp_tray.agents.approvals import Approvals
from acp_tray.agents.host import AgentHost
from acp_tray.agents.questions import Questions
from acp_tray.agents.turns import HostedSession


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
        if any(found.session(name, s) for s in _sessions(host)):
            agents.add(name)
    return Waiting(found.asking, frozenset(agents))


def _sessions(host: AgentHost) -> Iterable[HostedSession]:
    return host.sessions.values()
