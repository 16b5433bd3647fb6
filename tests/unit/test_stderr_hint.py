"""What an agent's stderr tail shows a person: meaningful lines without terminal sequences; the
full tail goes to the log."""

from __future__ import annotations

import asyncio
import logging

import pytest

from acp_tray.agents.stderr import StderrTail, meaningful, plain


async def drained(data: bytes) -> StderrTail:
    stream = asyncio.StreamReader()
    stream.feed_data(data)
    stream.feed_eof()
    tail = StderrTail("a")
    await tail.drain(stream)
    return tail


async def test_the_hint_quotes_the_last_meaningful_lines_without_colours_or_json_ends() -> None:
    data = (
        b"\x1b[2m2026-11-30T12:00:00Z\x1b[0m \x1b[31mERROR\x1b[0m codex: stream disconnected\n"
        b"fatal: could not reach api.openai.com\n"
        b'{\n  "error": "network"\n}\n'
        b"\x1b]0;title\x07\n"
        b"   ],\n"
    )
    tail = await drained(data)
    assert tail.hint() == (
        "; last stderr: 2026-11-30T12:00:00Z ERROR codex: stream disconnected | "
        'fatal: could not reach api.openai.com | "error": "network"'
    )


async def test_no_meaningful_line_no_hint_and_the_log_gets_the_full_tail(caplog: pytest.LogCaptureFixture) -> None:
    tail = await drained(b"}\n]\n\x1b[2m\x1b[0m\n")
    assert tail.hint() == "" and tail.tail() == []
    with caplog.at_level(logging.INFO):
        tail.log_tail("exited")
    assert "exited; its last 2 stderr line(s):\n  }\n  ]" in caplog.text


@pytest.mark.parametrize(
    ("line", "expected"),
    [("}", False), ("  ],", False), ("42", False), ("ok", True), ("Ошибка сети", True), ("E: x", False)],
)
def test_meaningful_means_a_word(line: str, expected: bool) -> None:
    assert meaningful(line) is expected


def test_plain_strips_csi_osc_and_controls() -> None:
    assert plain("\x1b[1;31mred\x1b[0m \x1b]8;;http://x\x1b\\link\x1b]8;;\x1b\\ \x07bell") == "red link bell"
