"""Severity classes for presentation: the three known severities and "other", and their order."""

from __future__ import annotations

from acp_tray.prefs.model import SeverityClass
from acp_tray.protocol.notice import SeverityKind

_CLASS_OF: dict[SeverityKind, SeverityClass] = {
    SeverityKind.INFO: "info",
    SeverityKind.WARNING: "warning",
    SeverityKind.ERROR: "error",
    SeverityKind.EXTENSION: "other",
    SeverityKind.FUTURE: "other",
}

# which class is the most severe (for badges and summaries): an unknown severity ranks above
# info only because it may matter; nothing more is inferred from its name
SEVERITY_RANK: dict[SeverityClass, int] = {"info": 0, "other": 1, "warning": 2, "error": 3}


def severity_class(kind: SeverityKind) -> SeverityClass:
    return _CLASS_OF[kind]
