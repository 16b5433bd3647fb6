"""Our message-level transport in front of the SDK's Connection: bad lines are skipped, never fatal.

The first tests prove the SDK 0.12.x traps exist (so the workaround is needed); the rest prove
that through our transport the next valid message always arrives.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any, cast

import pytest
from acp.connection import Connection

from acp_tray.agents.transport import LineTransport
from acp_tray.protocol.jsonrpc import jsonrpc_problem

VALID = {"jsonrpc": "2.0", "method": "session/update", "params": {"sessionId": "s", "update": {}}}


class NullWriter:
    """Enough of a StreamWriter for transports that never send in these tests."""

    def write(self, data: bytes) -> None:
        self.data = data

    async def drain(self) -> None:
        return None


def feed(reader: asyncio.StreamReader, *lines: bytes, eof: bool = True) -> None:
    for line in lines:
        reader.feed_data(line)
    if eof:
        reader.feed_eof()


async def collect_via_connection(transport_or_reader: Any, use_ours: bool) -> list[str]:
    """Run a real SDK Connection and return the methods its handler saw."""
    seen: list[str] = []

    async def handler(method: str, params: Any, is_notification: bool) -> None:
        seen.append(method)

    if use_ours:
        connection = Connection(handler, transport_or_reader)
    else:
        connection = Connection(handler, NullWriter(), transport_or_reader)  # type: ignore[arg-type]
    await asyncio.sleep(0.2)
    await connection.close()
    return seen


SECOND = json.dumps({**VALID, "method": "second"}).encode() + b"\n"
FIRST = json.dumps({**VALID, "method": "first"}).encode() + b"\n"


@pytest.mark.parametrize("poison", [b"42\n", b'"text"\n', b"[1, 2]\n"])
async def test_sdk_trap_non_object_line_kills_its_receive_loop(poison: bytes) -> None:
    reader = asyncio.StreamReader()
    feed(reader, FIRST, poison, SECOND)
    seen = await collect_via_connection(reader, use_ours=False)
    assert seen == ["first"]  # the SDK alone loses every message after the poison line


@pytest.mark.parametrize(
    "poison",
    [
        b"42\n",
        b'"text"\n',
        b"[1, 2]\n",
        b"null\n",
        b"not json at all\n",
        b"\xff\xfe\xfa invalid utf-8\n",
        b'{"jsonrpc":"2.0","id":[1],"result":1}\n',
        b'{"jsonrpc":"2.0","id":{"a":1},"method":"x"}\n',
        b'{"jsonrpc":"2.0","method":42}\n',
        b'{"jsonrpc":"2.0","id":7,"error":"boom"}\n',
        b'{"jsonrpc":"2.0","id":7}\n',
        b'{"hello":"world"}\n',
        b"[" * 100_000 + b"\n",
        b"\n",
        b"   \r\n",
    ],
)
async def test_our_transport_skips_the_poison_and_keeps_going(poison: bytes) -> None:
    reader = asyncio.StreamReader(limit=1 << 20)
    drops: list[str] = []
    transport = LineTransport(reader, NullWriter(), on_drop=lambda reason, line: drops.append(reason))  # type: ignore[arg-type]
    feed(reader, FIRST, poison, SECOND)
    seen = await collect_via_connection(transport, use_ours=True)
    assert seen == ["first", "second"]
    if poison.strip():
        assert len(drops) == 1 and drops[0]


async def test_overlong_line_is_dropped_whole_and_the_next_message_arrives() -> None:
    limit = 1024
    reader = asyncio.StreamReader(limit=limit)
    drops: list[str] = []
    transport = LineTransport(
        reader,
        cast(asyncio.StreamWriter, NullWriter()),  # a stand-in: the test only reads
        on_drop=lambda reason, line: drops.append(reason),
        max_line_bytes=limit,
    )
    huge = json.dumps({**VALID, "method": "huge", "params": {"x": "y" * 50_000}}).encode() + b"\n"
    # fed in small chunks, as a pipe would deliver it
    chunks = [huge[i : i + 700] for i in range(0, len(huge), 700)]
    feed(reader, FIRST, *chunks, SECOND)
    seen = await collect_via_connection(transport, use_ours=True)
    assert seen == ["first", "second"]
    assert drops == [f"line longer than {limit} bytes"]


async def test_final_line_without_newline_is_still_delivered() -> None:
    reader = asyncio.StreamReader()
    transport = LineTransport(reader, NullWriter(), on_drop=lambda reason, line: None)  # type: ignore[arg-type]
    feed(reader, FIRST, SECOND.rstrip(b"\n"))
    assert await collect_via_connection(transport, use_ours=True) == ["first", "second"]


async def test_terminal_sequences_in_front_of_a_message_are_left_out_and_words_still_told() -> None:
    """gemini leaves its alternate screen (`ESC[?1049l`) on the line of its `authenticate` answer;
    its sign-in's words (after `ESC[2J`) still go to `on_text`, a person may need to read them."""
    reader = asyncio.StreamReader()
    texts: list[bytes] = []
    writer = cast(asyncio.StreamWriter, NullWriter())
    transport = LineTransport(reader, writer, on_drop=lambda reason, line: None, on_text=texts.append)
    feed(reader, b"\x1b[?1049h\x1b[2J\x1b[HPlease visit the following URL\n", b"\x1b[?1049l" + FIRST, SECOND)
    assert await collect_via_connection(transport, use_ours=True) == ["first", "second"]
    assert texts == [b"Please visit the following URL"]


@pytest.mark.parametrize(
    ("message", "ok"),
    [
        ({"jsonrpc": "2.0", "id": 1, "method": "m"}, True),
        ({"jsonrpc": "2.0", "id": "a", "result": None}, True),
        ({"jsonrpc": "2.0", "id": None, "error": {"code": 1, "message": "x"}}, True),
        ({"jsonrpc": "2.0", "method": "n"}, True),
        ({"jsonrpc": "2.0", "id": True, "method": "m"}, False),
        ({"jsonrpc": "2.0", "id": 1.5, "method": "m"}, False),
        ({"jsonrpc": "2.0", "id": 1}, False),
        ({"jsonrpc": "2.0"}, False),
    ],
)
def test_jsonrpc_shape(message: dict[str, Any], ok: bool) -> None:
    assert (jsonrpc_problem(message) is None) is ok
