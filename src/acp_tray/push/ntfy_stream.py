"""Following an ntfy topic: `GET /TOPIC/json` on the target's server (outbound; TLS for https),
each line of the stream one JSON message. Bounded whatever the server sends: a line longer than
LINE_LIMIT is skipped, headers past HEAD_LIMIT end the stream, and a stream silent for longer
than SILENCE (ntfy sends a keepalive every 45 s) is given up, so that a dead connection is noticed.
The topic, and the server's credentials, are never logged."""

from __future__ import annotations

import asyncio
import json
import ssl
from collections.abc import AsyncIterator, Callable
from typing import Any

from acp_tray import __version__
from acp_tray.push.ntfy_server import NtfyServer

LINE_LIMIT = 16 * 1024  # bytes of one message line (ntfy's own limit is 4 KiB of message)
HEAD_LIMIT = 64  # header lines of the answer
SILENCE = 150.0  # seconds without a byte: the connection is taken for dead
PIECE = 64 * 1024


class StreamError(Exception):
    """The server would not stream the topic (an HTTP error, not a stream): the message says what."""


def _request(server: NtfyServer, topic: str, since: str) -> bytes:
    lines = [
        f"GET /{topic}/json?since={since} HTTP/1.1",
        f"Host: {server.host}" + ("" if server.port in (80, 443) else f":{server.port}"),
        f"User-Agent: acp-tray/{__version__}",
        "Accept: application/x-ndjson",
        "Connection: close",
        *(f"{name}: {value}" for name, value in server.headers().items()),
    ]
    return ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1")


async def _read(reader: asyncio.StreamReader, call: Any) -> Any:
    return await asyncio.wait_for(call, SILENCE)


async def _head(reader: asyncio.StreamReader) -> bool:
    """The answer's status and headers; whether its body is chunked. StreamError unless 200."""
    status = (await _read(reader, reader.readline())).decode("latin-1", "replace").split()
    if len(status) < 2 or status[1] != "200":
        code = status[1] if len(status) >= 2 else "nothing"
        raise StreamError(f"the server answered {code} (is the topic readable with the target's credentials?)")
    chunked = False
    for _ in range(HEAD_LIMIT):
        line = (await _read(reader, reader.readline())).decode("latin-1", "replace").strip().lower()
        if not line:
            return chunked
        chunked = chunked or (line.startswith("transfer-encoding:") and "chunked" in line)
    raise StreamError("the server's answer has too many headers")


async def _pieces(reader: asyncio.StreamReader, chunked: bool) -> AsyncIterator[bytes]:
    """The body's bytes as they come (chunked transfer decoded)."""
    while True:
        if not chunked:
            piece = await _read(reader, reader.read(PIECE))
            if not piece:
                return
            yield piece
            continue
        size_line = await _read(reader, reader.readline())
        try:
            size = int(size_line.split(b";")[0].strip() or b"0", 16)
        except ValueError:
            raise StreamError("the server's stream is not well formed") from None
        if size == 0:
            return
        while size > 0:
            piece = await _read(reader, reader.readexactly(min(size, PIECE)))
            size -= len(piece)
            yield piece
        await _read(reader, reader.readline())  # the chunk's CRLF


async def _lines(pieces: AsyncIterator[bytes]) -> AsyncIterator[bytes]:
    """Complete lines, each at most LINE_LIMIT bytes: a longer one is dropped whole."""
    buffer, skipping = b"", False
    async for piece in pieces:
        buffer += piece
        while True:
            end = buffer.find(b"\n")
            if end < 0:
                if len(buffer) > LINE_LIMIT:
                    buffer, skipping = b"", True
                break
            line, buffer = buffer[:end], buffer[end + 1 :]
            if not skipping and len(line) <= LINE_LIMIT:
                yield line
            skipping = False


async def follow(server: NtfyServer, topic: str, since: str, on_message: Callable[[dict[str, Any]], None]) -> None:
    """Follow `topic` from `since` (an ntfy message id, or a Unix time) until the server ends the
    stream; `on_message` gets each JSON object. OSError, TimeoutError or StreamError when it fails."""
    context = ssl.create_default_context() if server.secure else None
    opening = asyncio.open_connection(server.host, server.port, ssl=context, limit=LINE_LIMIT)
    reader, writer = await asyncio.wait_for(opening, SILENCE)
    try:
        writer.write(_request(server, topic, since))
        await writer.drain()
        chunked = await _head(reader)
        async for line in _lines(_pieces(reader, chunked)):
            try:
                message = json.loads(line)
            except ValueError:
                continue
            if isinstance(message, dict):
                on_message(message)
    finally:
        writer.close()
