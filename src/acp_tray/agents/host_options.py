"""What an agent host is given besides its spec: its options (how it runs the agent) and its
services (the parts it shares with the daemon; each made for the host alone when not given)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

from acp_tray.agents.approvals import Approvals
from acp_tray.agents.questions import Questions
from acp_tray.agents.sessions import SessionStore
from acp_tray.agents.spec import PermissionPolicy
from acp_tray.agents.transport import DEFAULT_MAX_LINE_BYTES
from acp_tray.agents.versions import VersionMemory

HANDSHAKE_TIMEOUT = 60.0


@dataclass(frozen=True)
class HostOptions:
    """How the host runs its agent: the permission policy (its first: the host's own can change),
    the protocol ("auto", 1 or 2, from the preferences), whether notices are advertised, the longest
    line read, the handshake's time and the run mark (agents/leftovers.py; None: not `acp-tray run`)."""

    policy: PermissionPolicy = field(default_factory=PermissionPolicy)
    protocol: str | int = "auto"
    advertise_notices: bool = True
    max_line_bytes: int = DEFAULT_MAX_LINE_BYTES
    handshake_timeout: float = HANDSHAKE_TIMEOUT
    run_mark: str | None = None


@dataclass(frozen=True)
class HostServices:
    """What the host shares with the daemon: the requests waiting for the person, where sessions
    and the versions agents speak are kept, and the reader of the secrets an agent's env names."""

    approvals: Approvals | None = None
    questions: Questions | None = None
    store: SessionStore | None = None
    versions: VersionMemory | None = None
    secrets: Callable[[str], Mapping[str, str]] | None = None
