"""ACP protocol versions this client speaks."""

from __future__ import annotations

from enum import IntEnum


class ProtocolVersion(IntEnum):
    V1 = 1
    V2 = 2


SUPPORTED = (ProtocolVersion.V1, ProtocolVersion.V2)


def answered_version(initialize_result: object) -> int | None:
    """The agent's `protocolVersion` (an integer), or None when it is missing or not one."""
    version = initialize_result.get("protocolVersion") if isinstance(initialize_result, dict) else None
    return version if type(version) is int else None
