"""ACP protocol versions this client speaks."""

from __future__ import annotations

from enum import IntEnum


class ProtocolVersion(IntEnum):
    V1 = 1
    V2 = 2


SUPPORTED = (ProtocolVersion.V1, ProtocolVersion.V2)
# what a program that ran but answered `initialize` with an error, or not at all, is said to be
# (the daemon's verdict, and the words the window's form quotes)
DOES_NOT_SPEAK_ACP = "does not speak ACP (the Agent Client Protocol)"


def answered_version(initialize_result: object) -> int | None:
    """The agent's `protocolVersion` (an integer), or None when it is missing or not one."""
    version = initialize_result.get("protocolVersion") if isinstance(initialize_result, dict) else None
    return version if type(version) is int else None
