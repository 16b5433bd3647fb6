"""One hosted session and its prompt queue: prompts run one turn at a time, in the order they came.

v1: a turn is the `session/prompt` request; its answer carries the stop reason. v2: the answer only
acknowledges the prompt; the turn ends with a `state_update` to `idle` (with the stop reason).
Foreground work the agent starts by itself (v2: `running` ... `idle` with no prompt of ours) ends
with a `TurnEnded` too.

A turn's reply text streams to whoever waits on it; its end becomes a `TurnEnded` event (none
when the person cancelled it). Cancelling a queued prompt just takes it out of the queue;
cancelling the running turn sends `session/cancel` and answers the session's pending permission
requests with `cancelled`, as ACP requires.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
import logging
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Protocol

from acp.exceptions import RequestError

from acp_tray.agents.sessions import SessionKey
from acp_tray.events import EventSink, TurnEnded
from acp_tray.protocol.session import STOP_REASONS, StateChange, cancel_params, prompt_params
from acp_tray.protocol.version import ProtocolVersion

log = logging.getLogger(__name__)

_job_ids = itertools.count(1)
DETAIL_LIMIT = 300
CANCEL_TIMEOUT = 10.0

StreamSink = Callable[[dict[str, Any]], None]


class Requester(Protocol):
    async def send_request(self, method: str, params: Any | None = None) -> Any: ...

    async def send_notification(self, method: str, params: Any | None = None) -> None: ...


def error_text(exc: RequestError) -> str:
    """A JSON-RPC error as one line for a person: message, the agent's details, code."""
    data = exc.data
    if isinstance(data, dict):
        data = data.get("details") or data.get("message") or data.get("reason") or (json.dumps(data) if data else None)
    detail = f": {str(data)[:DETAIL_LIMIT]}" if data else ""
    return f"{exc}{detail} (code {exc.code})"


@dataclass(frozen=True)
class TurnOutcome:
    stop_reason: str | None  # None when the prompt request failed
    error: str | None = None


@dataclass(eq=False)
class PromptJob:
    """One prompt from the person. `stream` gets {"event": "started"|"chunk", ...} while it runs."""

    key: SessionKey
    text: str
    stream: StreamSink | None = None
    job_id: str = field(default_factory=lambda: str(next(_job_ids)))
    cancelled: bool = False  # by the person
    result: asyncio.Future[TurnOutcome] = field(default_factory=lambda: asyncio.get_running_loop().create_future())

    def emit(self, event: dict[str, Any]) -> None:
        if self.stream is not None:
            try:
                self.stream(event)
            except Exception:  # a gone listener must not end the turn
                log.debug("prompt %s: the listener went away", self.job_id, exc_info=True)
                self.stream = None

    def finish(self, outcome: TurnOutcome) -> None:
        if not self.result.done():
            self.result.set_result(outcome)


class HostedSession:
    def __init__(
        self,
        key: SessionKey,
        session_id: str,
        connection: Requester,
        sink: EventSink,
        on_cancel: Callable[[str], None],
        version: ProtocolVersion = ProtocolVersion.V1,
    ) -> None:
        self.key = key
        self.session_id = session_id
        self._connection = connection
        self._sink = sink
        self._on_cancel = on_cancel  # answers the session's pending permission requests
        self._queue: deque[PromptJob] = deque()
        self._wake = asyncio.Event()
        self.current: PromptJob | None = None
        self.turns = 0
        self.version = version
        self._idle: asyncio.Future[StateChange] | None = None  # v2: the running turn's end
        self._agent_working = False  # v2: foreground work seen without a prompt of ours
        self._sending: set[asyncio.Task[None]] = set()
        self._worker = asyncio.create_task(self._work(), name=f"session:{key.agent}:{key.name}")

    @property
    def queued(self) -> int:
        return len(self._queue)

    def jobs(self) -> list[PromptJob]:
        return ([self.current] if self.current else []) + list(self._queue)

    def submit(self, job: PromptJob) -> int:
        """Queue a prompt; returns how many turns are ahead of it."""
        ahead = len(self._queue) + (1 if self.current is not None else 0)
        self._queue.append(job)
        self._wake.set()
        return ahead

    async def cancel(self, job: PromptJob | None = None) -> bool:
        """Cancel `job` (default: the running turn). False when there was nothing to cancel."""
        if job is not None and job in self._queue:
            self._queue.remove(job)
            job.cancelled = True
            job.finish(TurnOutcome("cancelled"))
            return True
        current = self.current
        if current is None or (job is not None and job is not current):
            return False
        current.cancelled = True
        self._on_cancel(self.session_id)
        # sent in the background: an agent that stopped reading must not hold the person's cancel
        task = asyncio.create_task(self._send_cancel())
        self._sending.add(task)
        task.add_done_callback(self._sending.discard)
        return True

    async def _send_cancel(self) -> None:
        with contextlib.suppress(ConnectionError, RequestError, TimeoutError, OSError):
            await asyncio.wait_for(
                self._connection.send_notification("session/cancel", cancel_params(self.session_id)), CANCEL_TIMEOUT
            )

    def on_state(self, change: StateChange) -> None:
        """v2 `state_update`: `idle` ends the running turn, or work the agent started by itself."""
        if change.state != "idle":
            if self.current is None:
                self._agent_working = True
            return
        if self._idle is not None and not self._idle.done():
            self._idle.set_result(change)
        elif self._agent_working:
            self._agent_working = False
            outcome = self._outcome_of(change)
            self._sink(TurnEnded(self.key.agent, self.session_id, self.key.name, outcome.stop_reason, outcome.error))

    @staticmethod
    def _outcome_of(change: StateChange) -> TurnOutcome:
        if change.stop_reason == "error":
            return TurnOutcome(None, change.error or "the agent reported an error")
        return TurnOutcome(change.stop_reason or "end_turn")  # an idle without a reason ended normally

    def on_message_text(self, text: str) -> None:
        if self.current is not None:
            self.current.emit({"event": "chunk", "text": text})

    def close(self, reason: str) -> None:
        """The connection is gone: every job still here fails with `reason`."""
        self._worker.cancel()
        for job in self.jobs():
            job.finish(TurnOutcome(None, reason))
        self._queue.clear()

    async def _work(self) -> None:
        while True:
            while not self._queue:
                self._wake.clear()
                await self._wake.wait()
            job = self._queue.popleft()
            self.current = job
            try:
                outcome = await self._turn(job)
            finally:
                self.current = None
            self.turns += 1
            if not job.cancelled:
                key = self.key
                self._sink(TurnEnded(key.agent, self.session_id, key.name, outcome.stop_reason, outcome.error))
            job.finish(outcome)

    async def _turn(self, job: PromptJob) -> TurnOutcome:
        job.emit({"event": "started", "session": self.key.name, "session_id": self.session_id})
        if self.version is ProtocolVersion.V2:
            self._idle = asyncio.get_running_loop().create_future()  # before the prompt: idle may come first
        try:
            result = await self._connection.send_request("session/prompt", prompt_params(self.session_id, job.text))
            if self._idle is not None:
                return self._outcome_of(await self._idle)
        except RequestError as exc:
            return TurnOutcome(None, error_text(exc))
        except ConnectionError:
            return TurnOutcome(None, "the agent closed the connection during the turn")
        finally:
            self._idle = None
        stop = result.get("stopReason") if isinstance(result, dict) else None
        if not isinstance(stop, str) or not stop:
            return TurnOutcome(None, "the agent answered session/prompt without a stopReason")
        if stop not in STOP_REASONS:
            log.info("%s: unknown stop reason %r", self.key.agent, stop)
        return TurnOutcome(stop)
