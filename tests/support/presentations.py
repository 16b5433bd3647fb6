"""Presentations as the router makes them, for tests of the surfaces that show them."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from acp_tray.presentation.router import Presentation
from acp_tray.protocol.notice import severity_kind


def make_presentation(group: int = 1, title: str = "T", severity: str = "info", **fields: Any) -> Presentation:
    """A presentation as the router would make it, for tests of the surfaces."""
    values: dict[str, Any] = {
        "group": group,
        "agent": "bot",
        "session_id": "s",
        "severity": severity,
        "kind": severity_kind(severity),
        "title": title,
        "description": None,
        "count": 1,
        "timeout": 5,
        "notify": True,
        "tray": True,
        "time": datetime(2026, 11, 29, 12, 0),
    }
    values.update(fields)
    return Presentation(**values)
