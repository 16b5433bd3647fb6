"""What acp-tray says about itself in `initialize`: client info and the capabilities it implements.

v2 offers carry the v1 fields too (`clientInfo`, `clientCapabilities` with `session.notices`;
the v2 schema allows extra properties): an agent that answers 1 to a v2-shaped request and read
its capabilities from it still sees that acp-tray presents notices. Whether it did cannot be
known, so the host re-initializes such an agent on a fresh connection offering 1 (once).
"""

from __future__ import annotations

from typing import Any

from acp_tray import __version__
from acp_tray.protocol.auth import client_auth_capabilities, client_meta
from acp_tray.protocol.version import ProtocolVersion

CLIENT_NAME = "acp-tray"


def client_info() -> dict[str, str]:
    return {"name": CLIENT_NAME, "title": "acp-tray", "version": __version__}


def elicitation_capabilities() -> dict[str, Any]:
    """Questions, both kinds (the same in v1 and v2): forms the person fills in, pages they open."""
    return {"form": {}, "url": {}}


def client_capabilities_v1(*, notices: bool = True, terminal_auth: bool = True) -> dict[str, Any]:
    """v1 client capabilities: only what we implement (no `fs`, no `terminal`): notices, compaction
    (shown as a turn's state), questions (elicitation), terminal sign-in (acp-tray runs the agent's
    own command in a terminal; also said the older way, `_meta["terminal-auth"]`), and subagents
    (`subagents: {}`: child sessions are kept under their parent and named; v2 has them in its baseline).

    `notices=False` withholds `session.notices` (for tests proving agents then send none).
    """
    auth = client_auth_capabilities(ProtocolVersion.V1, terminal=terminal_auth)
    both = {
        "auth": auth,
        "elicitation": elicitation_capabilities(),
        "subagents": {},
        **client_meta(terminal=terminal_auth),
    }
    session: dict[str, Any] = {"notices": {}, "compaction": {}} if notices else {"compaction": {}}
    return {"session": session, **both}


def initialize_params_v1(*, notices: bool = True, terminal_auth: bool = True) -> dict[str, Any]:
    return {
        "protocolVersion": int(ProtocolVersion.V1),
        "clientInfo": client_info(),
        "clientCapabilities": client_capabilities_v1(notices=notices, terminal_auth=terminal_auth),
    }


def initialize_params_v2(*, notices: bool = True, terminal_auth: bool = True) -> dict[str, Any]:
    """v2 needs no notice capability; `capabilities` holds only what v2 defines that we implement
    (terminal sign-in, questions)."""
    return {
        "protocolVersion": int(ProtocolVersion.V2),
        "info": client_info(),
        "capabilities": {
            "auth": client_auth_capabilities(ProtocolVersion.V2, terminal=terminal_auth),
            **client_meta(terminal=terminal_auth),
            "elicitation": elicitation_capabilities(),
        },
        "clientInfo": client_info(),
        "clientCapabilities": client_capabilities_v1(notices=notices, terminal_auth=terminal_auth),
    }


def initialize_params(version: ProtocolVersion, *, notices: bool = True, terminal_auth: bool = True) -> dict[str, Any]:
    """`terminal_auth`: acp-tray can run the agent's command for a terminal sign-in (a local agent)."""
    if version is ProtocolVersion.V2:
        return initialize_params_v2(notices=notices, terminal_auth=terminal_auth)
    return initialize_params_v1(notices=notices, terminal_auth=terminal_auth)


def new_session_params(cwd: str) -> dict[str, Any]:
    return {"cwd": cwd, "mcpServers": []}
