"""The buttons' tokens (pure) and the reply stream's bounds (a real socket on loopback): a token is
read back only as it was signed, and by its own key; anything altered or forged is nobody's. The
stream hands on each JSON line, drops one longer than its limit whole, and ends with the server."""

from __future__ import annotations

import asyncio
import json
from typing import Any

from acp_tray.push import ntfy_stream
from acp_tray.push.answer_token import Press, new_key, new_nonce, read, sign
from acp_tray.push.ntfy_server import NtfyServer

KEY = new_key()


def test_a_token_reads_back_as_signed_and_an_altered_or_forged_one_does_not() -> None:
    press = Press("q12", 1, 1_900_000_000, new_nonce())
    token = sign(KEY, press)
    assert read(KEY, token) == press
    assert read(new_key(), token) is None  # another daemon's key
    head, mac = token.rsplit(".", 1)
    for altered in (
        token.replace(".1.", ".0.", 1),  # another button
        token.replace("1900000000", "1900000001"),  # a later expiry
        token.replace("q12", "q13"),  # another request
        f"{head}.{'A' * len(mac)}",  # a forged MAC
        token + "x",
        "",
        "allow",
        "acp1." * 100,
    ):
        assert read(KEY, altered) is None, altered


def _chunked(*lines: bytes) -> bytes:
    body = b"".join(f"{len(line):x}\r\n".encode() + line + b"\r\n" for line in lines)
    head = b"HTTP/1.1 200 OK\r\nContent-Type: application/x-ndjson\r\nTransfer-Encoding: chunked\r\n\r\n"
    return head + body + b"0\r\n\r\n"


async def _follow(answer: bytes) -> tuple[list[dict[str, Any]], bytes]:
    asked: list[bytes] = []

    async def serve(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        asked.append(await reader.readuntil(b"\r\n\r\n"))
        writer.write(answer)
        await writer.drain()
        writer.close()

    server = await asyncio.start_server(serve, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    got: list[dict[str, Any]] = []
    async with server:
        await ntfy_stream.follow(NtfyServer("127.0.0.1", port, False, "Bearer tk_x"), "reply-topic", "123", got.append)
    return got, asked[0]


def test_the_stream_hands_on_json_lines_and_drops_an_overlong_one_whole() -> None:
    huge = json.dumps({"event": "message", "id": "big", "message": "x" * (ntfy_stream.LINE_LIMIT + 10)})
    lines = [
        b'{"event":"open","id":"o"}\n',
        huge[: len(huge) // 2].encode(),
        huge[len(huge) // 2 :].encode() + b"\n",
        b"not json\n",
        b'{"event":"message","id":"m1","message":"hi"}\n',
    ]
    got, asked = asyncio.run(_follow(_chunked(*lines)))
    assert [m["id"] for m in got] == ["o", "m1"]
    assert asked.startswith(b"GET /reply-topic/json?since=123 HTTP/1.1\r\n")
    assert b"\r\nAuthorization: Bearer tk_x\r\n" in asked
