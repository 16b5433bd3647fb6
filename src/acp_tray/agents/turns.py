"""One hosted session and its prompt queue: prompts run one turn at a time, in the order they came.

v1: a turn is the `session/prompt` request; its answer carries the stop reason. v2: the answer only
acknowledges the prompt; the turn ends with a `state_update` to `idle` (with the stop reason).
Foreground work the agent starts by itself (v2: `running` ... `idle` with no prompt of ours) ends
with a `TurnEnded` too.

A turn's reply text streams to whoever waits on it; its end becomes a `TurnEnded` event (none
when the person cancelled it). Cancelling a queued prompt just takes it out of the queue;
cancelling the running turn sends `session/cancel` and answers the session's pending permission
requests with `cancelled`, as ACP requires.

Every turn ends: a v2 prompt answered with a v1 `stopReason` ends there (a protocol deviation,
logged: such an agent behaves as v1 whatever version it answered); a cancelled turn the agent
never confirms ends after `CANCEL_GRACE` seconds; when the connection goes, the running and the
queued prompts fail with the reason (a `TurnEnded` error each: a `--no-wait` prompt has nobody
waiting on it, and must not vanish).
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
import logging
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Protocol

from acp.exceptions import RequestError

from acp_tray.agents.activity import Activity
from acp_tray.agents.sessions import SessionKey
from acp_tray.events import (
    ActivityChanged,
    EventSink,
    QueueChanged,
    RateLimit,
    ReplyText,
    TurnEnded,
    TurnProgress,
    TurnStarted,
)
from acp_tray.prefs.names import pasteable
from acp_tray.protocol.auth import AUTH_REQUIRED
from acp_tray.protocol.errors import DETAIL_LIMIT, data_words, error_words, limit_refusal
from acp_tray.protocol.session import STOP_REASONS, StateChange, cancel_params, prompt_params
from acp_tray.protocol.version import ProtocolVersion

log = logging.getLogger(__name__)

_job_ids = itertools.count(1)
CANCEL_TIMEOUT = 10.0
CANCEL_GRACE = 5.0  # after session/cancel, the agent's last chance to end the turn itself
AGENT_GONE = "the agent closed the connection"  # why a connection ended that acp-tray did not end

StreamSink = Callable[[TurnProgress], None]


class Gate(Protocol):
    """The agent's sign-in (agents/signin.py): prompts wait while it is needed."""

    needed: str | None

    async def wait(self) -> None: ...

    def required(self, exc: RequestError) -> Exception: ...


class Requester(Protocol):
    async def send_request(self, method: str, params: Any | None = None) -> Any: ...

    async def send_notification(self, method: str, params: Any | None = None) -> None: ...


def error_text(exc: RequestError) -> str:
    """A JSON-RPC error as one line for a person (protocol/errors.py); its data is logged at DEBUG
    (as escaped JSON) when it has a shape acp-tray does not say."""
    message = exc.args[0] if exc.args else None
    if exc.data and data_words(exc.data) is None:
        log.debug("%r (code %s): its data, not shown: %s", message, exc.code, _json(exc.data))
    return error_words(exc.code, message, exc.data)


def _text(value: object) -> str:
    return value if isinstance(value, str) else ""


def _json(data: object) -> str:
    try:
        return json.dumps(data, default=repr)[:DETAIL_LIMIT]
    except (ValueError, RecursionError):
        return "(too deeply nested)"


@dataclass(frozen=True)
class TurnOutcome:
    stop_reason: str | None  # None when the prompt request failed
    error: str | None = None
    signin: bool = False  # the agent wants a sign-in first (auth_required)
    limit: RateLimit | None = None  # the error says the agent hit a rate or usage limit


@dataclass(eq=False)
class PromptJob:
    """One prompt from the person. `stream` hears its turn start and its reply text as it comes."""

    key: SessionKey
    text: str
    stream: StreamSink | None = None
    job_id: str = field(default_factory=lambda: str(next(_job_ids)))
    cancelled: bool = False  # by the person
    result: asyncio.Future[TurnOutcome] = field(default_factory=lambda: asyncio.get_running_loop().create_future())

    def emit(self, event: TurnProgress) -> None:
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
        on_v1_reply: Callable[[], None] | None = None,
        signin: Gate | None = None,
        silence_after: Callable[[], float] = lambda: 0.0,
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
        self._gave_up: asyncio.Future[None] | None = None  # set when a cancel was never confirmed
        self._said: dict[str, str] = {}  # v2: the running turn's reply text by messageId
        self._on_v1_reply = on_v1_reply  # a v2 prompt answered as v1 would
        self._agent_working = False  # v2: foreground work seen without a prompt of ours
        self._sending: set[asyncio.Task[None]] = set()
        self.signin = signin  # the agent's: the queue waits while a sign-in is needed
        self.activity = Activity(self._activity_changed, silence_after)
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
        self._queue_changed()
        return ahead

    def _activity_changed(self) -> None:
        self._sink(ActivityChanged(self.key.agent, self.session_id, self.key.name))

    def _turn_ended(self, outcome: TurnOutcome) -> None:
        """Say the turn ended, once no subagent of it waits for the person (`Activity.hold_end`)."""
        key, session_id = self.key, self.session_id
        end = TurnEnded(key.agent, session_id, key.name, outcome.stop_reason, outcome.error, limit=outcome.limit)
        self.activity.hold_end(lambda: self._sink(end))

    def _queue_changed(self) -> None:
        """Say what runs and what waits (a status reader follows it)."""
        key = self.key
        self._sink(QueueChanged(key.agent, self.session_id, key.name, self.current is not None, len(self._queue)))

    async def cancel(self, job: PromptJob | None = None) -> bool:
        """Cancel `job` (default: the running turn). False when there was nothing to cancel."""
        if job is not None and job in self._queue:
            self._queue.remove(job)
            job.cancelled = True
            job.finish(TurnOutcome("cancelled"))
            self._queue_changed()
            return True
        current = self.current
        if current is None or (job is not None and job is not current):
            return False
        current.cancelled = True
        for session_id in (self.session_id, *self.activity.children):  # its subagents' requests too
            self._on_cancel(session_id)
        # sent in the background: an agent that stopped reading must not hold the person's cancel
        task = asyncio.create_task(self._send_cancel())
        self._sending.add(task)
        task.add_done_callback(self._sending.discard)
        asyncio.get_running_loop().call_later(CANCEL_GRACE, self._give_up, current)
        return True

    def _give_up(self, job: PromptJob) -> None:
        """The agent never ended the cancelled turn: it ends here (the agent may still be at it)."""
        if self.current is job and self._gave_up is not None and not self._gave_up.done():
            log.warning(
                "%s: session %s did not confirm the cancel within %g s; the turn is ended without it",
                self.key.agent,
                self.session_id,
                CANCEL_GRACE,
            )
            self._gave_up.set_result(None)

    async def _send_cancel(self) -> None:
        with contextlib.suppress(ConnectionError, RequestError, TimeoutError, OSError):
            await asyncio.wait_for(
                self._connection.send_notification("session/cancel", cancel_params(self.session_id)), CANCEL_TIMEOUT
            )

    def on_state(self, change: StateChange) -> None:
        """v2 `state_update`: `idle` ends the running turn, or work the agent started by itself."""
        self.activity.on_state(change.state)
        if change.state != "idle":
            if self.current is None:
                self._agent_working = True
            return
        if self._idle is not None and not self._idle.done():
            self._idle.set_result(change)
        elif self._agent_working:
            self._agent_working = False
            outcome = self._outcome_of(change)
            if not outcome.signin:  # a sign-in need is told by the sign-in notice
                self._turn_ended(outcome)

    def _outcome_of(self, change: StateChange) -> TurnOutcome:
        """How a v2 idle ended the work; one that stopped for a sign-in goes the way of a v1
        auth_required refusal (the gate closes, the sign-in notice names the agent's methods)."""
        limit = limit_refusal(change.error_code, change.error_message, change.error_data, time.time())
        if change.needs_sign_in and self.signin is not None and limit is None:
            self.signin.required(RequestError(AUTH_REQUIRED, _text(change.error_message), change.error_data))
            return TurnOutcome(None, change.error, signin=True)
        if change.stop_reason == "error":
            return TurnOutcome(None, change.error or "the agent reported an error", limit=limit)
        return TurnOutcome(change.stop_reason or "end_turn")  # an idle without a reason ended normally

    def on_message_text(self, text: str, message: str | None = None, whole: bool = False) -> None:
        """Reply text for the running turn. A chunk is appended; a whole v2 `agent_message` replaces
        what its message said so far: what it adds is streamed (a rewrite starts a new line, as
        text already shown cannot be taken back)."""
        if self.current is None:
            return
        said = self._said.get(message, "") if message is not None else ""
        if not whole:
            new = text
            said += text
        elif text.startswith(said):
            new, said = text[len(said) :], text
        else:
            new, said = ("\n" if said else "") + text, text
        if message is not None:
            self._said[message] = said
        if new:
            self.current.emit(ReplyText(new))

    def close(self, reason: str) -> None:
        """The connection is gone: every job still here fails with `reason`, and says so."""
        self._worker.cancel()
        self.activity.close()
        for job in self.jobs():
            if not job.cancelled and not job.result.done():
                error = f"{'interrupted' if job is self.current else 'not run'}: {reason}"
                self._sink(TurnEnded(self.key.agent, self.session_id, self.key.name, None, error))
                job.finish(TurnOutcome(None, error))
            job.finish(TurnOutcome(None, reason))
        if self._queue:
            self._queue.clear()
            self._queue_changed()

    async def _work(self) -> None:
        while True:
            while not self._queue:
                self._wake.clear()
                await self._wake.wait()
            if self.signin is not None:
                await self.signin.wait()
                if not self._queue:
                    continue  # cancelled while waiting
            job = self._queue.popleft()
            self.current = job
            self._queue_changed()
            self.activity.turn_started()
            try:
                outcome = await self._turn(job)
            finally:
                self.current = None
                self.activity.turn_ended()
                self._queue_changed()
            if outcome.signin:
                self._held_for_signin(job)
                continue
            self.turns += 1
            if not job.cancelled:
                self._turn_ended(outcome)
            job.finish(outcome)

    def _held_for_signin(self, job: PromptJob) -> None:
        """The agent refused the prompt until a sign-in: the queue waits (the person is told once, by
        the sign-in notice, not once per prompt). A prompt nobody waits on (`--no-wait`) is sent
        again after the sign-in; one the person waits on fails now, saying how to sign in."""
        if job.stream is None and not job.cancelled:
            self._queue.appendleft(job)
            return
        job.finish(TurnOutcome(None, f"{self.key.agent} needs you to sign in: `{pasteable('login', self.key.agent)}`"))

    async def _turn(self, job: PromptJob) -> TurnOutcome:
        job.emit(TurnStarted(self.key.name, self.session_id))
        self._said.clear()
        loop = asyncio.get_running_loop()
        self._gave_up = loop.create_future()
        if self.version is ProtocolVersion.V2:
            self._idle = loop.create_future()  # before the prompt: idle may come first
        prompt = asyncio.ensure_future(self._prompt(job))
        try:
            either: set[asyncio.Future[Any]] = {prompt, self._gave_up}
            await asyncio.wait(either, return_when=asyncio.FIRST_COMPLETED)
            if prompt.done():
                return prompt.result()
            return TurnOutcome("cancelled")
        finally:
            prompt.cancel()
            self._idle = self._gave_up = None

    async def _prompt(self, job: PromptJob) -> TurnOutcome:
        try:
            result = await self._connection.send_request("session/prompt", prompt_params(self.session_id, job.text))
            if self._idle is not None:
                stop = result.get("stopReason") if isinstance(result, dict) else None
                if isinstance(stop, str) and stop and not self._idle.done():
                    return self._v1_reply(stop, result)
                return self._outcome_of(await self._idle)
        except RequestError as exc:
            limit = limit_refusal(exc.code, exc.args[0] if exc.args else None, exc.data, time.time())
            if exc.code == AUTH_REQUIRED and self.signin is not None and limit is None:
                self.signin.required(exc)
                return TurnOutcome(None, error_text(exc), signin=True)
            return TurnOutcome(None, error_text(exc), limit=limit)
        except ConnectionError:
            # the same words as when the host notices first (`close`): which side sees the end first is a race
            return TurnOutcome(None, f"interrupted: {AGENT_GONE}")
        stop = result.get("stopReason") if isinstance(result, dict) else None
        if not isinstance(stop, str) or not stop:
            return TurnOutcome(None, "the agent answered session/prompt without a stopReason")
        if stop not in STOP_REASONS:
            log.info("%s: unknown stop reason %r", self.key.agent, stop)
        return TurnOutcome(stop)

    def _v1_reply(self, stop: str, result: dict[str, Any]) -> TurnOutcome:
        """ACP 2 answers a prompt with its messageId and ends the turn with `state_update` idle; an
        agent that answers with a stopReason instead behaves as v1 (e.g. it echoed the version
        offered): the answer ends the turn."""
        log.warning(
            "%s: protocol deviation: on ACP 2 it answered session/prompt with stopReason %r%s; the turn ends there",
            self.key.agent,
            stop,
            "" if "messageId" in result else " and no messageId (an ACP 1 answer)",
        )
        if "messageId" not in result and self._on_v1_reply is not None:
            self._on_v1_reply()
        return TurnOutcome(stop)
