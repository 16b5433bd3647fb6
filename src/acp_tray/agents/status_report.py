"""What a host tells of its agent's life: each lifecycle step (to the daemon and to the log), and
why the agent is unusable or refuses to work, with the last of its stderr."""

from __future__ import annotations

import logging

from acp_tray.agents.stderr import StderrTail
from acp_tray.events import AgentState, AgentStatus, AgentUnusable, EventSink
from acp_tray.prefs.names import pasteable

ENDS = (AgentState.FAILED, AgentState.EXITED, AgentState.REFUSED)  # the stderr tail goes to the log


class StatusReport:
    def __init__(self, agent: str, sink: EventSink, stderr: StderrTail, log: logging.Logger) -> None:
        self._agent = agent
        self._sink = sink
        self._stderr = stderr
        self._log = log
        self.last_detail = ""  # of the last status reported

    def status(self, state: AgentState, detail: str = "") -> None:
        """Report a lifecycle step: to the daemon, and to the log at INFO (a daemon started at
        login leaves nothing else to read)."""
        self.last_detail = detail
        self._log.info("%s%s", state.value, f": {detail}" if detail else "")
        if state in ENDS:
            self._stderr.log_tail(state.value)
        self._sink(AgentStatus(self._agent, state, detail))

    def unusable(self, title: str, detail: str) -> None:
        self._log.info("%s: %s", title.lower(), detail)
        self._sink(AgentUnusable(self._agent, title, detail))

    def refused(self, reason: str) -> None:
        """One error notice with the agent's own words; no retry until the person acts."""
        self.status(AgentState.REFUSED, reason)
        retry = (
            f"It is not retried until you run `{pasteable('agents', 'restart', self._agent)}`, "
            "change its configuration or sign in."
        )
        self.unusable("Refused to work", f"{reason}{self._stderr.hint()}\n{retry}")
