"""A sink for the domain events an agent host emits, that a test can wait on."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any, TypeVar

E = TypeVar("E")


class EventLog:
    """A sink that records events and lets a test wait for a condition on them."""

    def __init__(self) -> None:
        self.events: list[Any] = []
        self._changed = asyncio.Event()

    def __call__(self, event: Any) -> None:
        self.events.append(event)
        self._changed.set()

    def of(self, kind: type[E]) -> list[E]:
        return [e for e in self.events if isinstance(e, kind)]

    # a deadline of its own, as tests/support/waiting.py's, so that every wait in a test is bounded
    async def wait_for(self, predicate: Callable[[], bool], timeout: float = 30.0) -> None:  # noqa: ASYNC109
        async def loop() -> None:
            while not predicate():
                self._changed.clear()
                await self._changed.wait()

        await asyncio.wait_for(loop(), timeout)
