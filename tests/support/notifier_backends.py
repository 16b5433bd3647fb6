"""Notification backends a test scripts: up or down, fast or slow, recording what they were given."""

from __future__ import annotations

import asyncio

from acp_tray.notifiers.backend import BackendUnavailableError
from acp_tray.notifiers.content import Notification


class Scripted:
    """A backend whose health the test controls; records what it showed."""

    def __init__(self, name: str, *, up: bool = True, delay: float = 0.0) -> None:
        self.name = name
        self.up = up
        self.delay = delay
        self.shown: list[Notification] = []
        self.in_flight = 0
        self.max_in_flight = 0
        self.starts = 0

    async def start(self) -> str:
        self.starts += 1
        if not self.up:
            raise BackendUnavailableError("down")
        return "ok"

    async def notify(self, notification: Notification) -> None:
        if not self.up:
            raise BackendUnavailableError("gone")
        self.in_flight += 1
        self.max_in_flight = max(self.max_in_flight, self.in_flight)
        try:
            await asyncio.sleep(self.delay)
        finally:
            self.in_flight -= 1
        self.shown.append(notification)

    async def close(self, group: int) -> None:
        """Nothing to take back."""
        return None

    async def aclose(self) -> None:
        return None
