"""What acp-tray says about itself in `initialize`: client info and the capabilities it implements."""

from __future__ import annotations

from typing import Any

from acp_tray import __version__
from acp_tray.protocol.version import ProtocolVersion

CLIENT_NAME = "acp-tray"


def client_info() -> dict[str, str]:
    return {"name": CLIENT_NAME, "title": "acp-tray", "version": __version__}


def client_capabilities_v1(*, notices: bool = True) -> dict[str, Any]:
    """v1 client capabilities: only what we implement (no `fs`, no `terminal`).

    `notices=False` withholds `session.notices` (for tests proving agents then send none).
    """
    return {"session": {"notices": {}}} if notices else {}


def initialize_params_v1(*, notices: bool = True) -> dict[str, Any]:
    return {
        "protocolVersion": int(ProtocolVersion.V1),
        "clientInfo": client_info(),
        "clientCapabilities": client_capabilities_v1(notices=notices),
    }


def new_session_params(cwd: str) -> dict[str, Any]:
    return {"cwd": cwd, "mcpServers": []}
