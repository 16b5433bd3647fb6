"""One ntfy target's reply topic, followed while something answerable from the phone waits:
reconnected with back-off when the server ends the stream or cannot be reached, and resumed after
the last message seen, so that a press made while the connection was down is not lost. Each
message is handed on once (a resumed stream that repeats one is not acted on twice)."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections import OrderedDict
from collections.abc import Callable
from typing import Any

from acp_tray.backoff import Backoff, BackoffPolicy
from acp_tray.push.ntfy_server import NtfyServer
from acp_tray.push.ntfy_stream import StreamError, follow

log = logging.getLogger(__name__)

RECONNECT = BackoffPolicy(initial=1.0, maximum=60.0, stable=30.0, fast=30.0, give_up_after=None)
SEEN_LIMIT = 512  # message ids remembered, so that a resumed stream's repeats are dropped

OnPress = Callable[[str, str], None]  # (target name, the message's text)


class ReplyListener:
    def __init__(
        self, name: str, server: NtfyServer, topic: str, on_press: OnPress, *, policy: BackoffPolicy = RECONNECT
    ) -> None:
        self._name = name
        self._server = server
        self._topic = topic
        self._on_press = on_press
        self._policy = policy
        self._since = str(int(time.time()))  # nothing from before it was needed
        self._seen: OrderedDict[str, None] = OrderedDict()
        self._task: asyncio.Task[None] | None = None

    @property
    def running(self) -> bool:
        return self._task is not None and not self._task.done()

    def start(self) -> None:
        if not self.running:
            self._task = asyncio.get_running_loop().create_task(self._run(), name=f"push-replies-{self._name}")

    async def stop(self) -> None:
        task, self._task = self._task, None
        if task is not None:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task

    async def _run(self) -> None:
        loop = asyncio.get_running_loop()
        backoff = Backoff(self._policy)
        while True:
            started = loop.time()
            try:
                await follow(self._server, self._topic, self._since, self._message)
                why = "the server ended the stream"
            except (OSError, TimeoutError, StreamError) as exc:
                why = str(exc) if isinstance(exc, StreamError) else f"{type(exc).__name__}: {exc}"
            delay = backoff.crashed(loop.time() - started) or self._policy.maximum
            log.info("replies from %s: %s; following them again in %g s", self._name, why, delay)
            await asyncio.sleep(delay)

    def _message(self, message: dict[str, Any]) -> None:
        """One line of the stream: a message's text is handed on once; keepalives and the like are not."""
        message_id = message.get("id")
        if message.get("event") != "message" or not isinstance(message_id, str) or len(message_id) > 64:
            return
        self._since = message_id  # a resumed stream starts after it
        if message_id in self._seen:
            return
        self._seen[message_id] = None
        if len(self._seen) > SEEN_LIMIT:
            self._seen.popitem(last=False)
        text = message.get("message")
        if isinstance(text, str):
            self._on_press(self._name, text)
