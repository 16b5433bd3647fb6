"""Waiting in a test for something to become true: polled, with a deadline that says what never came."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from typing import Any

POLL = 0.02  # seconds between looks: short next to any deadline, long enough to cost nothing


def until(condition: Callable[[], Any], timeout: float = 20.0, what: str = "condition") -> Any:
    """Poll `condition` until it gives something true (returned), or fail after `timeout` seconds."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = condition()
        if value:
            return value
        time.sleep(POLL)
    raise AssertionError(f"timed out after {timeout:g} s waiting for {what}")


# A deadline of its own (not the caller's asyncio.timeout) so that a failure names what it waited for;
# polled, because what it waits on (a list a callback appends to, a process's state) has no event.
async def until_async(condition: Callable[[], Any], timeout: float = 20.0, what: str = "condition") -> Any:  # noqa: ASYNC109
    """`until` inside the event loop: the loop runs on while it waits."""
    deadline = time.monotonic() + timeout
    await asyncio.sleep(0)  # tasks already ready (a daemon just started) take a first step before the first look
    while time.monotonic() < deadline:
        value = condition()
        if value:
            return value
        await asyncio.sleep(POLL)
    raise AssertionError(f"timed out after {timeout:g} s waiting for {what}")
