"""A message-level transport in front of the SDK's `Connection` for newline-delimited JSON-RPC.

The SDK's own stdio framing (0.12.x) has traps this transport closes:
- a line that is valid JSON but not an object (e.g. `42`) kills its receive loop, and so does
  an object that is not a JSON-RPC message it can route (unhashable `id`, non-object `error`);
- an over-long line is buffered without bound.
Here every line is bounded (terminal sequences in front of a message are left out), and anything
that is not a routable JSON-RPC object is reported to
`on_drop` and skipped (a plain-text line also to `on_text`: a person may need to read it); the next
valid message is delivered as usual. Sending reuses the SDK's `MessageSender`, so the framing on
the way out is the SDK's own.
"""

from __future__ import annotations

import asyncio
import json
import logging
import re
from collections.abc import Callable
from typing import Any

import pydantic_core
from acp.task import MessageSender, TaskSupervisor

from acp_tray.protocol.jsonrpc import ERROR_WITHOUT_ID, jsonrpc_problem

DEFAULT_MAX_LINE_BYTES = 4 * 1024 * 1024
MAX_UNANSWERED = 256  # of an agent's requests in flight at once (permission requests waiting for the person count)
SIGN_IN_METHODS = ("authenticate", "auth/login")  # ours, whose ids are kept to cancel one (`$/cancel_request`)

DropHandler = Callable[[str, bytes], None]
TextHandler = Callable[[bytes], None]
NOT_JSON = "not JSON"
DROP_LOG_FIRST = 20
DROP_LOG_EVERY = 1000
PREVIEW_BYTES = 120


class DropLog:
    """A `DropHandler` that counts skipped messages and logs the first few, then every thousandth."""

    def __init__(self, log: logging.Logger) -> None:
        self._log = log
        self.count = 0

    def __call__(self, reason: str, line: bytes) -> None:
        if reason == ERROR_WITHOUT_ID:
            self._log.debug("the agent answered a notification with an error: %r", line[:PREVIEW_BYTES])
            return
        self.count += 1
        n = self.count
        if n <= DROP_LOG_FIRST or n % DROP_LOG_EVERY == 0:
            preview = line[:PREVIEW_BYTES].decode("utf-8", "replace")
            self._log.warning("skipped a message from the agent (%s; %d so far): %r", reason, n, preview)


# terminal sequences before a message: an agent leaving its alternate screen as it answers (gemini's
# `ESC[?1049l` after its sign-in, written on the same line as its JSON-RPC answer)
_LEADING_SEQUENCES = re.compile(rb"^(?:\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b[@-_])+")
_META_KEY = re.compile(rb'"_meta"\s*:\s*')
_TOKEN = re.compile(rb'"(?:[^"\\]|\\.)*"|[\[\]{}]')


def without_meta(line: bytes) -> bytes | None:
    """`line` with the value of every `"_meta"` key that opens an object or array replaced by `null`
    (`_meta` is optional everywhere in ACP), or None when there is none or the brackets do not close."""
    out, position, found = [], 0, False
    for key in _META_KEY.finditer(line):
        start = key.end()
        if start < position or line[start : start + 1] not in (b"{", b"["):
            continue
        depth = 0
        for token in _TOKEN.finditer(line, start):
            if token[0] in (b"{", b"["):
                depth += 1
            elif token[0] in (b"}", b"]"):
                depth -= 1
            if depth == 0:
                out += [line[position:start], b"null"]
                position, found = token.end(), True
                break
        else:
            return None
    return b"".join([*out, line[position:]]) if found else None


def decode_line(line: bytes) -> dict[str, Any] | str:
    """One line to a routable JSON-RPC message, or the reason it is not one.

    pydantic-core's JSON parser is about 3x faster than `json.loads` on notice-sized lines; the
    rare text it refuses but the standard library accepts (lone surrogate escapes, NaN) falls
    back to `json.loads`, so nothing valid to Python's parser is lost.
    """
    try:
        message = pydantic_core.from_json(line)
    except ValueError:
        try:
            message = json.loads(line)
        except RecursionError:  # too deep for the parser: without its `_meta`, the rest may be fine
            shallow = without_meta(line)
            try:
                message = json.loads(shallow) if shallow is not None else None
            except (ValueError, RecursionError):
                message = None
            if message is None:
                return f"{NOT_JSON} (RecursionError)"
        except ValueError as exc:
            return f"{NOT_JSON} ({type(exc).__name__})"
    problem = jsonrpc_problem(message)
    if problem is not None:
        return problem
    assert isinstance(message, dict)
    return message


class LineTransport:
    """SDK `Transport` over an agent's stdout/stdin: bounded lines, JSON-RPC objects only."""

    def __init__(
        self,
        reader: asyncio.StreamReader,
        writer: asyncio.StreamWriter,
        *,
        on_drop: DropHandler,
        on_text: TextHandler | None = None,
        max_line_bytes: int = DEFAULT_MAX_LINE_BYTES,
    ) -> None:
        self._reader = reader
        self._on_drop = on_drop
        self._on_text = on_text
        self._max_line_bytes = max_line_bytes
        self._tasks = TaskSupervisor(source="acp_tray.LineTransport")
        self._writer = writer
        self._sender = MessageSender(writer, self._tasks)

    async def send(self, message: dict[str, Any]) -> None:
        await self._sender.send(message)

    async def type_line(self, text: str) -> None:
        """One line of text to the agent's input, as typed on a terminal (what an agent reading its
        sign-in code there waits for); written whole, so it never splits a message."""
        self._writer.write(text.encode("utf-8") + b"\n")
        await self._writer.drain()

    async def close(self) -> None:
        await self._sender.close()
        await self._tasks.shutdown()

    async def receive(self) -> dict[str, Any] | None:
        while True:
            line = await self._next_line()
            if line is None:
                return None
            stripped = line.strip()
            if stripped[:1] == b"\x1b":
                stripped = _LEADING_SEQUENCES.sub(b"", stripped).strip()
            if not stripped:
                continue
            message = decode_line(stripped)
            if isinstance(message, str):
                self._on_drop(message, stripped)
                if self._on_text is not None and message.startswith(NOT_JSON) and stripped[:1] not in b"{[":
                    self._on_text(stripped)  # words, not a broken message
                continue
            return message

    async def _next_line(self) -> bytes | None:
        """The next complete line, or None at end of stream. Over-long lines are dropped whole."""
        discarding = False
        while True:
            try:
                line = await self._reader.readuntil(b"\n")
            except asyncio.IncompleteReadError as exc:
                if discarding or not exc.partial:
                    return None
                return exc.partial
            except asyncio.LimitOverrunError as exc:
                if not discarding:
                    self._on_drop(f"line longer than {self._max_line_bytes} bytes", b"")
                discarding = True
                await self._reader.readexactly(exc.consumed)
                continue
            if discarding:
                discarding = False  # the tail of the over-long line
                continue
            return line


class WatchedTransport:
    """The agent's side of a transport, watched on the way in: when it ends (EOF: how a remote
    agent 'exits', and how a local one's output closes), and the JSON-RPC id of each permission
    request, so that the agent's `$/cancel_request` for it can be matched (the SDK hands the
    handler the params, not the id)."""

    def __init__(self, inner: Any) -> None:
        self._inner = inner
        self.ended = asyncio.Event()
        self._ids: dict[int, object] = {}  # id(params) -> request id, until the handler takes it
        self._sign_ins: dict[int, object] = {}  # id(params) -> id of our sign-in requests (to cancel one)
        self._unanswered = 0  # the agent's requests not answered yet
        self._room = asyncio.Event()
        self._room.set()

    async def send(self, message: dict[str, Any]) -> None:
        if message.get("method") in SIGN_IN_METHODS and "id" in message:
            self._sign_ins[id(message.get("params"))] = message["id"]
        await self._inner.send(message)
        if "id" in message and "method" not in message and self._unanswered > 0:  # an answer to the agent
            self._unanswered -= 1
            if self._unanswered < MAX_UNANSWERED:
                self._room.set()

    async def receive(self) -> dict[str, Any] | None:
        # an agent that floods requests (each is a task in the SDK) is read no further until some are answered
        await self._room.wait()
        message: dict[str, Any] | None = await self._inner.receive()
        if message is None:
            self.ended.set()
            return message
        if "id" in message and isinstance(message.get("method"), str):
            self._unanswered += 1
            if self._unanswered >= MAX_UNANSWERED:
                self._room.clear()
        if message.get("method") == "session/request_permission" and "id" in message:
            self._ids[id(message.get("params"))] = message["id"]
        return message

    async def type_line(self, text: str) -> None:
        """A line of text to a local agent's input (ConnectionError: this agent has no such input)."""
        typist = getattr(self._inner, "type_line", None)
        if typist is None:
            raise ConnectionError("a remote agent has no input to type into")
        await typist(text)

    def request_id(self, params: object) -> object:
        """The id of the permission request whose params these are (taken once)."""
        return self._ids.pop(id(params), None)

    def sent_id(self, params: object) -> object:
        """The id our sign-in request with these params went out with (taken once)."""
        return self._sign_ins.pop(id(params), None)

    async def close(self) -> None:
        self.ended.set()
        await self._inner.close()
