"""The time now, in the local zone: what events, the history and the window date things with."""

from __future__ import annotations

from datetime import datetime


def now() -> datetime:
    return datetime.now().astimezone()
