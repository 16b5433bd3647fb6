"""The daemon's end of the control endpoint: accepts local connections, one request each, checks
it against the declared API (control/api.py) and hands it to its op's handler in the dispatch
table; streams its events, then the final reply.

Unix: an asyncio Unix server on the private socket (mode 0600). A socket file left by a daemon
that crashed is replaced; one that answers means acp-tray is already running, and is refused.
Windows: a named pipe through the Proactor loop's pipe server.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import sys
import time
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Generic, Never, TypeVar

from acp_tray.control.api import OPS, Args, Op
from acp_tray.control.endpoint import EndpointError, pipe_name, prepare_socket_path, socket_answers, untrusted_peer
from acp_tray.control.errors import ErrorCode, OpError
from acp_tray.control.replies import Chunk, Dropped
from acp_tray.control.streamed import wire_event
from acp_tray.control.wire import MAX_LINE, ProtocolError, decode, encode

log = logging.getLogger(__name__)

READ_TIMEOUT = 10.0  # seconds for a client to send its whole request line
WRITE_TIMEOUT = 30.0  # seconds for a client to take the final reply
MAX_CONNECTIONS = 128  # at once; more are answered "busy" and closed
STREAM_BUFFER = 1024 * 1024  # bytes of a streamed reply held for a client that does not read
SAY_EVERY = 60.0  # seconds between two warnings of the same kind
E = TypeVar("E")  # an op's events


class Stream(Generic[E]):
    """The events an op streams before its reply (a prompt's chunks, `watch`'s changes), each one
    of the op's declared events, written here (control/streamed.py). A client that stops reading
    loses the rest of a prompt's chunks (said once in the stream) rather than have them buffered;
    an op that follows the daemon waits with `drained` instead."""

    def __init__(
        self,
        reader: asyncio.StreamReader,
        writer: asyncio.StreamWriter,
        declared: tuple[type[E], ...],
        slow: Callable[[], None],
    ) -> None:
        self._reader, self._writer, self._declared, self._slow = reader, writer, declared, slow
        self._dropped = 0  # chunks not sent to a client that stopped reading

    def __call__(self, event: E) -> None:
        if not isinstance(event, self._declared):  # a bug: the op's declaration says what it streams
            raise TypeError(f"{type(event).__name__} is not one of the events its op declares")
        writer = self._writer
        if writer.is_closing():
            raise ConnectionError("the client went away")
        if isinstance(event, Chunk) and (self._dropped or writer.transport.get_write_buffer_size() > STREAM_BUFFER):
            if not self._dropped:  # said once, in the stream itself; the turn goes on
                note = "this client read too slowly; the rest of the reply is not streamed to it"
                writer.write(encode(wire_event(Dropped(note))))
                self._slow()
            self._dropped += 1
            return
        writer.write(encode(wire_event(event)))

    async def drained(self) -> None:
        """Once what was sent is (nearly all) read by the client; ConnectionError if it went away."""
        if self._writer.is_closing():
            raise ConnectionError("the client went away")
        await self._writer.drain()

    async def gone(self) -> None:
        """Once the client has closed its end (a request line is all a client ever sends)."""
        with contextlib.suppress(ConnectionError):
            while await self._reader.read(4096):
                pass


Emit = Stream  # what a streaming op is handed: `Emit[PromptEvent]`
A = TypeVar("A", bound=Args)
R = TypeVar("R")


@dataclass(frozen=True)
class Route(Generic[A, R, E]):
    """An op and what answers it: `run` gets the checked arguments and the stream for its events."""

    op: Op[A, R, E]
    run: Callable[[A, Emit[E]], Awaitable[R]]


def streaming(op: Op[A, R, E], handler: Callable[[A, Emit[E]], Awaitable[R]]) -> Route[A, R, E]:
    """An op that streams events (a prompt's reply) before its result."""
    return Route(_declaring(op), handler)


def following(op: Op[Args, R, E], handler: Callable[[Emit[E]], Awaitable[R]]) -> Route[Args, R, E]:
    """An op without arguments that streams what happens until the client goes (`watch`)."""

    async def run(_: Args, stream: Emit[E]) -> R:
        return await handler(stream)

    return Route(_declaring(op), run)


def _declaring(op: Op[A, R, E]) -> Op[A, R, E]:
    """A streaming op, checked to declare its events (what a client reads them as)."""
    if not op.events:
        raise ValueError(f"`{op.name}` streams events: its declaration in control/api.py must name them")
    return op


def answering(op: Op[A, R, Never], handler: Callable[[A], Awaitable[R]]) -> Route[A, R, Never]:
    """An op answered from its arguments alone."""

    async def run(args: A, _: Emit[Never]) -> R:
        return await handler(args)

    return Route(op, run)


def reading(op: Op[Args, R, Never], handler: Callable[[], Awaitable[R]]) -> Route[Args, R, Never]:
    """An op without arguments."""

    async def run(_: Args, __: Emit[Never]) -> R:
        return await handler()

    return Route(op, run)


Dispatch = Mapping[str, Route[Any, Any, Any]]


def dispatch(*routes: Route[Any, Any, Any]) -> Dispatch:
    """The table the server dispatches through: every declared op answered once, nothing else."""
    table = {route.op.name: route for route in routes}
    missing = [op.name for op in OPS if op.name not in table]
    extra = [name for name in table if name not in {op.name for op in OPS}]
    if missing or extra or len(table) != len(routes):
        raise ValueError(f"the dispatch table must answer each declared op once (missing {missing}, extra {extra})")
    return table


class ControlServer:
    def __init__(self, table: Dispatch) -> None:
        self._table = table
        self._server: asyncio.AbstractServer | None = None
        self._pipe: Any = None
        self.path: Path | None = None
        self._connections: set[asyncio.Task[Any]] = set()
        self._said: dict[str, float] = {}

    async def start(self) -> str:
        """Start listening; returns where. Raises EndpointError (not private, or already running)."""
        if sys.platform == "win32":  # pragma: no cover - Windows only
            loop = asyncio.get_running_loop()
            self._pipe = await loop.start_serving_pipe(  # type: ignore[attr-defined]
                lambda: asyncio.StreamReaderProtocol(asyncio.StreamReader(limit=MAX_LINE), self._serve),
                pipe_name(),
            )
            return pipe_name()
        self._throttle_accept_errors()
        path = prepare_socket_path()
        if path.exists() or path.is_symlink():
            if socket_answers(path):
                raise EndpointError(f"acp-tray is already running (its control socket {path} answers)")
            path.unlink()  # left behind by a daemon that did not stop cleanly
        old_umask = os.umask(0o177)
        try:
            self._server = await asyncio.start_unix_server(self._serve, path=str(path), limit=MAX_LINE)
        finally:
            os.umask(old_umask)
        os.chmod(path, 0o600)
        self.path = path
        return str(path)

    def _throttle_accept_errors(self) -> None:
        """Out of descriptors, asyncio reports every failed accept (and retries each second): one
        warning a minute instead; the socket keeps being served as descriptors come back."""
        loop = asyncio.get_running_loop()
        previous = loop.get_exception_handler()

        def handler(loop: asyncio.AbstractEventLoop, context: dict[str, Any]) -> None:
            if "out of system resource" in str(context.get("message", "")):
                error = context.get("exception")
                self._say_once("accept", f"cannot accept control connections for now ({error}); retrying")
            elif previous is not None:
                previous(loop, context)
            else:
                loop.default_exception_handler(context)

        loop.set_exception_handler(handler)

    async def aclose(self) -> None:
        for task in list(self._connections):
            task.cancel()
        if self._server is not None:
            self._server.close()
            with contextlib.suppress(Exception):
                await asyncio.wait_for(self._server.wait_closed(), 2.0)
        if self._pipe is not None:  # pragma: no cover - Windows only
            for server in self._pipe:
                server.close()
        if self.path is not None:
            with contextlib.suppress(FileNotFoundError):
                self.path.unlink()
            self.path = None

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        task = asyncio.current_task()
        assert task is not None
        sock = writer.get_extra_info("socket")
        why = untrusted_peer(sock) if sock is not None and sys.platform != "win32" else None
        if why is not None:  # another user reached the socket (its mode was changed?): not served
            log.warning("refused a control connection: %s", why)
            writer.close()
            return
        if len(self._connections) >= MAX_CONNECTIONS:  # answered at once, so the descriptor comes back
            self._say_once("busy", f"more than {MAX_CONNECTIONS} control connections at once: refusing more")
            writer.write(encode(_refused("the daemon is busy (too many connections)", ErrorCode.BUSY)))
            writer.close()
            return
        self._connections.add(task)
        try:
            reply = await self._one(reader, writer)
            writer.write(encode(reply))
            async with asyncio.timeout(WRITE_TIMEOUT):  # a client that never reads is let go
                await writer.drain()
        except (ConnectionError, asyncio.IncompleteReadError, TimeoutError):
            pass  # the client went away (or never read); whatever it asked for carries on
        finally:
            self._connections.discard(task)
            writer.close()
            with contextlib.suppress(Exception):
                async with asyncio.timeout(WRITE_TIMEOUT):
                    await writer.wait_closed()

    def _say_once(self, what: str, message: str) -> None:
        """One warning per kind of trouble per SAY_EVERY seconds (a flood of clients floods no log)."""
        now = time.monotonic()
        if now - self._said.get(what, float("-inf")) >= SAY_EVERY:
            self._said[what] = now
            log.warning("%s", message)

    async def _one(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> dict[str, Any]:
        try:
            async with asyncio.timeout(READ_TIMEOUT):  # idle or half-sent requests hold no descriptor
                line = await reader.readuntil(b"\n")
            request = decode(line)
        except TimeoutError:
            return _refused(f"no complete request within {READ_TIMEOUT:g} s", ErrorCode.TIMEOUT)
        except asyncio.LimitOverrunError:
            return _refused(f"request longer than {MAX_LINE} bytes", ErrorCode.BAD_REQUEST)
        except ProtocolError as exc:
            return _refused(str(exc), ErrorCode.BAD_REQUEST)
        op, args = request.get("op"), request.get("args", {})
        if not isinstance(op, str) or not isinstance(args, dict):
            return _refused("a request needs an op (string) and args (object)", ErrorCode.BAD_REQUEST)
        log.debug("control request %s", op)

        route = self._table.get(op)
        if route is None:
            return _refused(f"unknown request {op!r}", ErrorCode.UNKNOWN_OP)
        said = f"a control client stopped reading: {op} stream dropped"
        emit = Stream(reader, writer, route.op.events, lambda: self._say_once("slow", said))
        try:
            result = await route.run(route.op.parse(args), emit)
        except OpError as exc:
            return _refused(str(exc), exc.code)
        except Exception as exc:  # a bug must not take the daemon down: say so, keep serving
            log.exception("control request %r failed", op)
            return _refused(f"internal error: {type(exc).__name__}: {exc}", ErrorCode.INTERNAL)
        return {"ok": True, "result": result}


def _refused(message: str, code: ErrorCode) -> dict[str, Any]:
    return {"ok": False, "error": message, "code": code.value}
