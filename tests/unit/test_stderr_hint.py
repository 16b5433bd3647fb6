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


async def test_an_error_followed_by_its_details_and_advice_starts_the_hint() -> None:
    """fast-agent 0.10.48 with no model: its error, then details, advice and a link; the last three
    lines alone would say only the advice (item 7 of the sign-in round: "No model configured")."""
    data = (
        b"\n\x1b[1;31mModel Configuration Error:\x1b[0m\nNo model configured\n\nDetails:\n"
        b"Set an agent model, --model, FAST_AGENT_MODEL, or default_model in fast-agent.yaml.\n\n"
        b"Common models: gpt-5.5, kimi, sonnet, haiku. Set reasoning effort on supported models with "
        b"gpt-5.4-mini?reasoning=high\n\nVisit https://fast-agent.ai/ for more information\n"
    )
    tail = await drained(data)
    assert tail.hint() == (
        "; last stderr: Model Configuration Error: No model configured | Details: Set an agent model, --model, "
        "FAST_AGENT_MODEL, or default_model in fast-agent.yaml. | Common models: gpt-5.5, kimi, sonnet, haiku. "
        "Set reasoning effort on supported models with gpt-5.4-mini?reasoning=high"
    )


async def test_a_traceback_still_ends_the_hint_with_its_last_lines() -> None:
    data = b'Traceback (most recent call last):\n  File "agent.py", line 3, in <module>\n    main()\nValueError: boom\n'
    tail = await drained(data)
    said = '; last stderr: Traceback (most recent call last): File "agent.py", line 3, in <module> | main() | '
    assert tail.hint() == said + "ValueError: boom"


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
