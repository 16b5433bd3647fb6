"""An agent's state as the daemon reports it, declared on its own so that the window reads it without the
domain events (events.py names it too)."""

from __future__ import annotations

from enum import StrEnum


class AgentState(StrEnum):
    STARTING = "starting"
    CONNECTED = "connected"
    FAILED = "failed"  # could not start or handshake failed
    REFUSED = "refused"  # alive, but answered session/new with an error: not retried until the person acts
    EXITED = "exited"
    STOPPED = "stopped"  # stopped by acp-tray
    NEEDS_SIGNIN = "needs sign-in"  # running, waiting for the person to sign in (`acp-tray login`)


RUNNING_STATES = frozenset({AgentState.STARTING, AgentState.CONNECTED, AgentState.NEEDS_SIGNIN})  # Stop, not Start
