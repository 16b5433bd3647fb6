"""The CLI's end of the control endpoint: send one request, read events and the final reply.
Given a declared op (control/api.py), its arguments are that op's, its events are read as the
types it declares (control/streamed.py) and its result is its reply type.

Standard library (and platformdirs) only: `acp-tray status` must not pay for the ACP SDK,
pydantic or the tray.
"""

from __future__ import annotations

import contextlib
import io
import socket
import sys
import time
from collections.abc import Callable, Iterator
from typing import Any, Generic, TypeVar, cast, overload

from acp_tray.control.api import Args, Op
from acp_tray.control.endpoint import EndpointError, check_socket, pipe_name, socket_path, untrusted_peer
from acp_tray.control.errors import ErrorCode
from acp_tray.control.streamed import EventError
from acp_tray.control.wire import MAX_LINE, ProtocolError, decode, encode


class NoDaemonError(Exception):
    """Nothing is listening: acp-tray is not running (for this user)."""


class UntrustedError(NoDaemonError):
    """The socket, its directory or the process behind it is not the person's own: nothing is sent."""


A = TypeVar("A", bound=Args)
R = TypeVar("R")
E = TypeVar("E")  # an op's events


class ReplyError(Exception):
    """The daemon refused the request, or its reply did not come: `code` is an ErrorCode's value."""

    def __init__(self, message: str, code: str) -> None:
        super().__init__(message)
        self.code = code


PIPE_BUSY_WAIT = 5.0  # seconds to wait for a free pipe instance while the daemon serves others


def open_pipe(name: str, *, busy_wait: float = PIPE_BUSY_WAIT) -> io.BufferedRWPair:
    """A Windows named pipe as a buffered stream: an unbuffered handle read and written through
    `BufferedRWPair`, which never seeks (`open(name, "r+b")` makes a `BufferedRandom`, which needs
    a seekable file: Windows pretends a pipe is one, Wine does not). No such pipe: NoDaemonError.
    Every instance busy (the C runtime reports ERROR_PIPE_BUSY as EINVAL): waited for with
    WaitNamedPipe for up to `busy_wait` seconds, then NoDaemonError saying so."""
    deadline = time.monotonic() + busy_wait
    while True:
        try:
            raw = open(name, "r+b", buffering=0)  # noqa: SIM115
        except FileNotFoundError:
            raise NoDaemonError("acp-tray is not running (no control pipe)") from None
        except OSError as exc:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise NoDaemonError(f"acp-tray's control pipe is busy or unusable ({exc}); try again") from None
            if sys.platform == "win32":
                import _winapi

                with contextlib.suppress(OSError):  # timed out, or the pipe went away: tried again above
                    _winapi.WaitNamedPipe(name, max(1, int(min(remaining, 1.0) * 1000)))
            time.sleep(0.02)
            continue
        return io.BufferedRWPair(raw, raw)


TimeoutSetter = Callable[[float | None], None]


@contextlib.contextmanager
def _connect(timeout: float | None) -> Iterator[tuple[io.BufferedIOBase, TimeoutSetter]]:
    """The stream to the daemon, and what sets its time limit again (a pipe has none)."""
    if sys.platform == "win32":  # pragma: no cover - Windows only
        with open_pipe(pipe_name()) as pipe:
            yield pipe, lambda _: None
        return
    path = socket_path()
    if path.parent.exists() or path.parent.is_symlink():
        try:
            check_socket(path)
        except EndpointError as exc:
            raise UntrustedError(f"not talking to {path}: {exc}") from None
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    sock.settimeout(timeout)
    try:
        sock.connect(str(path))
    except (FileNotFoundError, ConnectionRefusedError):
        sock.close()
        raise NoDaemonError(f"acp-tray is not running (nothing at {path}); start it with `acp-tray run`") from None
    except OSError as exc:
        sock.close()
        raise NoDaemonError(f"cannot reach acp-tray at {path}: {exc.strerror or exc}") from None
    why = untrusted_peer(sock)
    if why is not None:
        sock.close()
        raise UntrustedError(f"not talking to {path}: {why}")
    with sock, sock.makefile("rwb") as stream:
        yield stream, sock.settimeout


def _no_answer(op: str, timeout: float | None) -> ReplyError:
    within = f" within {timeout:g} s" if timeout else ""
    return ReplyError(
        f"acp-tray did not answer `{op}`{within}; it may still be doing it: see `acp-tray status` or its log",
        ErrorCode.TIMEOUT,
    )


class Call(Generic[R, E]):
    """One request on its own connection: the events it streams (`events()`), then its final reply
    (`reply()`); or each message as it came (`next()`). Once the daemon says it waits for the person
    (a "waiting" event: a keyring's dialog, a browser), the reply is waited for without a time limit."""

    def __init__(
        self, stream: io.BufferedIOBase, op: Op[Any, R, E] | str, timeout: float | None, limit: TimeoutSetter
    ) -> None:
        self._stream, self._op, self._timeout, self._limit = stream, op, timeout, limit
        self._name = op.name if isinstance(op, Op) else op
        self._final: dict[str, Any] | None = None

    def next(self) -> dict[str, Any]:
        """The next message: an event ({"event": ...}) or the final reply ({"ok": ...})."""
        try:
            line = self._stream.readline()
        except TimeoutError:
            raise _no_answer(self._name, self._timeout) from None
        if not line:
            raise ReplyError("the daemon closed the connection without an answer (did it stop?)", ErrorCode.CLOSED)
        try:
            message = decode(line)
        except ProtocolError as exc:
            raise ReplyError(f"unexpected answer from the daemon: {exc}", ErrorCode.PROTOCOL) from None
        if message.get("event") == "waiting" and self._timeout is not None:
            self._timeout = None
            self._limit(None)
        return message

    def events(self) -> Iterator[E]:
        """Each event as the op declares it, until the final reply (then `reply()`). One the op does
        not declare, or one missing a field: ReplyError (`protocol`), saying what was wrong with it."""
        while self._final is None:
            message = self.next()
            if "event" not in message:
                self._final = message
                return
            yield self._typed(message)

    def _typed(self, message: dict[str, Any]) -> E:
        if not isinstance(self._op, Op):  # an op named by a string: its events as they came
            return cast(E, message)
        try:
            return self._op.event(message)
        except EventError as exc:
            raise ReplyError(f"unexpected answer from the daemon: {exc}", ErrorCode.PROTOCOL) from None

    def reply(self) -> R:
        """The final reply's result (the events not read yet are passed over), or ReplyError."""
        for _ in self.events():
            pass
        assert self._final is not None
        return cast(R, result_of(self._final))


def result_of(message: dict[str, Any]) -> Any:
    """The result of a final reply, or ReplyError."""
    if message.get("ok"):
        return message.get("result")
    raise ReplyError(str(message.get("error", "failed")), str(message.get("code", ErrorCode.FAILED)))


def _request_line(op: Op[Any, Any, Any] | str, args: Args | dict[str, Any] | None) -> bytes:
    if isinstance(op, Op) and isinstance(args, Args):  # a declared op (the overloads below) and its arguments
        return encode({"op": op.name, "args": op.wire(args)})
    return encode({"op": op.name if isinstance(op, Op) else op, "args": args if isinstance(args, dict) else {}})


@contextlib.contextmanager
def _calling(
    op: Op[Any, R, E] | str, args: Args | dict[str, Any] | None, timeout: float | None
) -> Iterator[Call[R, E]]:
    data = _request_line(op, args)
    name = op.name if isinstance(op, Op) else op
    if len(data) > MAX_LINE:
        size = f"{len(data) / 1024 / 1024:.1f} MiB"
        limit = f"{MAX_LINE // 1024 // 1024} MiB"
        raise ReplyError(f"the request is {size}; the daemon takes at most {limit}", ErrorCode.TOO_LONG)
    with _connect(timeout) as (stream, set_limit):
        try:
            stream.write(data)
            stream.flush()
        except (BrokenPipeError, ConnectionResetError):
            raise ReplyError("the daemon closed the connection before the request was sent", ErrorCode.CLOSED) from None
        except TimeoutError:
            raise _no_answer(name, timeout) from None
        yield Call(stream, op, timeout, set_limit)


def call(op: Op[A, R, E], args: A, *, timeout: float | None = 30.0) -> contextlib.AbstractContextManager[Call[R, E]]:
    """A request sent; read its events and its reply from the Call, on its connection."""
    return _calling(op, args, timeout)


@overload
def request(
    op: Op[A, R, E], args: A, *, on_event: Callable[[E], None] | None = None, timeout: float | None = 30.0
) -> R: ...


@overload
def request(
    op: str,
    args: dict[str, Any] | None = None,
    *,
    on_event: Callable[[dict[str, Any]], None] | None = None,
    timeout: float | None = 30.0,
) -> Any: ...


def request(
    op: Op[Any, Any, Any] | str,
    args: Args | dict[str, Any] | None = None,
    *,
    on_event: Callable[[Any], None] | None = None,
    timeout: float | None = 30.0,
) -> Any:
    """Send one request; its events go to `on_event` (a declared op's: its declared events); returns
    the result (a declared op's: its reply type) or raises ReplyError/NoDaemonError."""
    with _calling(op, args, timeout) as pending:
        for event in pending.events():
            if on_event is not None:
                on_event(event)
        return pending.reply()
