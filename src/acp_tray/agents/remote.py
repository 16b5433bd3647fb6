"""Remote agents over WebSocket: header templates filled from the environment, and an SDK `Transport`
around the SDK's WebSocket client that delivers only routable JSON-RPC objects of a bounded size."""

from __future__ import annotations

import asyncio
import json
import os
import re
import socket
import ssl
import string
from collections.abc import Callable, Mapping
from typing import Any

import websockets
from acp._transport import Transport
from acp.ws import create_websocket_stream

from acp_tray.agents.transport import DEFAULT_MAX_LINE_BYTES
from acp_tray.logs.redact import remember_secrets, shown_url
from acp_tray.protocol.jsonrpc import jsonrpc_problem

__all__ = ["RemoteConfigError", "RemoteTransport", "expand_headers", "open_remote"]

MESSAGE_TOO_BIG = 1009  # RFC 6455 close code: websockets fails the connection with it past its max_size
_PREVIEW_BYTES = 1024
_TOKEN = re.compile(r"[!#$%&'*+.^_`|~0-9A-Za-z-]+")  # RFC 9110 header name
_HEADER_VALUE = re.compile(r"[\x09\x20-\x7e\x80-\xff]*")  # what websockets sends (Latin-1, no controls)


class RemoteConfigError(Exception):
    """A remote agent's settings cannot be used. Messages name headers and variables, never values."""


def _check_header(name: str, value: str) -> None:
    if not _TOKEN.fullmatch(name):
        raise RemoteConfigError(f"{name!r} is not a valid HTTP header name")
    if not _HEADER_VALUE.fullmatch(value):
        raise RemoteConfigError(
            f"header {name!r} contains a line break, a control character or a non-Latin-1 character"
        )


def expand_headers(templates: dict[str, str], environ: Mapping[str, str]) -> dict[str, str]:
    """Fill each header's `string.Template` (`${VAR}`, `$VAR`; `$$` is a literal `$`) from `environ`."""
    headers: dict[str, str] = {}
    for name, template in templates.items():
        try:
            value = string.Template(template).substitute(environ)
        except KeyError as exc:
            raise RemoteConfigError(f"header {name!r} needs ${exc.args[0]}, which is not set") from None
        except ValueError:
            raise RemoteConfigError(
                f"header {name!r} has an invalid $ placeholder (write $$ for a literal $)"
            ) from None
        _check_header(name, value)
        headers[name] = value
    remember_secrets(headers.values())  # never in a log line, whoever logs it (websockets at -vvv too)
    return headers


def _os_reason(exc: OSError) -> str:
    if isinstance(exc, ssl.SSLCertVerificationError):
        return f"TLS certificate verification failed ({exc.verify_message})"
    if isinstance(exc, ssl.SSLError):
        return f"TLS error ({exc.reason or exc})"
    if isinstance(exc, socket.gaierror):
        return exc.strerror or str(exc)
    if exc.errno is not None and exc.errno > 0:
        return os.strerror(exc.errno)
    return str(exc) or type(exc).__name__


def _socket_limit(stream: Transport, max_message_bytes: int) -> Any:
    """Give the websockets connection inside the SDK's stream our message size limit; return that connection.

    `create_websocket_stream` (SDK 0.12.1) passes no `max_size` to websockets, whose default is 1 MiB,
    and keeps the connection in a private `_ws`, so the limit can only be set after the handshake: a
    frame that had begun to arrive by then (a server speaking before the client) is still held to
    websockets' 1 MiB rather than ours. In ACP the client speaks first. Returns None (and changes
    nothing, leaving 1 MiB) if the SDK ever moves the connection.
    """
    ws = getattr(stream, "_ws", None)
    protocol = getattr(ws, "protocol", None)
    if protocol is None or not hasattr(protocol, "max_message_size"):
        return None
    protocol.max_message_size = max_message_bytes
    return ws


def _preview(message: object) -> bytes:
    """What was dropped, re-serialised: the SDK hands over decoded JSON, not the frame's text."""
    try:
        text = json.dumps(message, ensure_ascii=False, separators=(",", ":"))
    except (ValueError, TypeError, RecursionError):
        return b""
    return text.encode("utf-8", "replace")[:_PREVIEW_BYTES]


class RemoteTransport:
    """SDK `Transport` over the SDK's WebSocket stream: JSON-RPC objects only, each at most `max_message_bytes`.

    The SDK's stream returns whatever `json.loads` makes of a text frame (`42`, `[1,2]`, ...), and
    its `Connection` stops reading at the first non-object; here those are reported to `on_drop` and
    skipped. A message over the limit cannot be skipped: websockets ends the connection (close code
    1009), which is reported to `on_drop` before `receive` returns None (see `_socket_limit` for the
    first frame's limit). Text frames that are not JSON and binary frames are skipped by the SDK
    itself, unreported.
    """

    def __init__(
        self,
        stream: Transport,
        url: str,
        *,
        on_drop: Callable[[str, bytes], None],
        max_message_bytes: int = DEFAULT_MAX_LINE_BYTES,
    ) -> None:
        self._stream = stream
        self._url = shown_url(url)
        self._on_drop = on_drop
        self._max_message_bytes = max_message_bytes
        self._ws = _socket_limit(stream, max_message_bytes)

    async def send(self, message: dict[str, Any]) -> None:
        try:
            await self._stream.send(message)
        except websockets.ConnectionClosed:
            raise ConnectionError(f"the connection to {self._url} is closed") from None

    async def receive(self) -> dict[str, Any] | None:
        while True:
            try:
                message: object = await self._stream.receive()
            except RecursionError:  # the SDK's json.loads on deeply nested arrays; the frame is consumed
                self._on_drop("not JSON (RecursionError)", b"")
                continue
            if message is None:
                self._report_too_big()
                return None
            problem = jsonrpc_problem(message)
            if problem is None:
                assert isinstance(message, dict)
                return message
            self._on_drop(problem, _preview(message))

    async def close(self) -> None:
        await self._stream.close()

    def _report_too_big(self) -> None:
        close_sent = getattr(getattr(self._ws, "protocol", None), "close_sent", None)
        if getattr(close_sent, "code", None) == MESSAGE_TOO_BIG:
            self._on_drop(f"message longer than {self._max_message_bytes} bytes; the connection was closed", b"")


async def open_remote(
    url: str,
    headers: dict[str, str],
    *,
    on_drop: Callable[[str, bytes], None],
    max_message_bytes: int = DEFAULT_MAX_LINE_BYTES,
    connect_timeout: float = 10.0,
) -> RemoteTransport:
    """Connect to an ACP agent's WebSocket endpoint, sending `headers` with the handshake.

    Raises `RemoteConfigError` for a header that cannot be sent and `ConnectionError` (one line, naming
    the URL, never a header value) when the connection cannot be made within `connect_timeout` seconds.
    """
    for name, value in headers.items():
        _check_header(name, value)
    shown = shown_url(url)

    def failed(reason: str) -> ConnectionError:
        return ConnectionError(f"cannot connect to {shown}: {reason}")

    try:
        async with asyncio.timeout(connect_timeout):
            stream = await create_websocket_stream(url, headers=dict(headers))
    except TimeoutError:
        raise failed(f"no answer within {connect_timeout:g} s") from None
    except websockets.InvalidURI:
        raise failed("not a ws:// or wss:// URL") from None
    except websockets.InvalidStatus as exc:
        raise failed(f"the server answered HTTP {exc.response.status_code}") from None
    except websockets.InvalidHeader as exc:  # its text quotes the header's value
        raise failed(f"the server's answer has an invalid {exc.name} header") from None
    except websockets.InvalidHandshake as exc:
        raise failed(f"WebSocket handshake failed: {exc}") from None
    except websockets.InvalidProxy:  # its text quotes the proxy URL, which may hold a password
        raise failed("the proxy settings are invalid (https_proxy, all_proxy, ...)") from None
    except OSError as exc:
        raise failed(_os_reason(exc)) from None
    return RemoteTransport(stream, url, on_drop=on_drop, max_message_bytes=max_message_bytes)
