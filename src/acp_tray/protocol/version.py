"""ACP protocol versions this client speaks."""

from __future__ import annotations

from enum import IntEnum


class ProtocolVersion(IntEnum):
    V1 = 1
    V2 = 2
