"""Item 12 of the security review: an agent writing to stderr without pause costs the daemon a
bounded amount of work (the lines it looks at grow with the reads, not with the lines written),
and the tail it keeps is still the agent's last lines."""

from __future__ import annotations

import asyncio

import pytest

from acp_tray.agents.stderr import StderrTail


async def test_a_stderr_flood_is_looked_at_in_bounded_work(monkeypatch: pytest.MonkeyPatch) -> None:
    lines = [f"line {n}".encode() for n in range(1_000_000)]  # 11 MB of short lines
    reader = asyncio.StreamReader()
    reader.feed_data(b"\n".join(lines) + b"\n")
    reader.feed_eof()
    tail = StderrTail("flood")
    looked_at = 0
    keep = tail._keep

    def counting(raw: bytes) -> None:
        nonlocal looked_at
        looked_at += 1
        keep(raw)

    monkeypatch.setattr(tail, "_keep", counting)
    await tail.drain(reader)
    assert tail.bytes_read == sum(len(line) + 1 for line in lines)
    assert tail.tail() == [line.decode() for line in lines[-50:]]
    assert looked_at < len(lines) // 100, f"{looked_at} lines looked at for a flood of {len(lines)}"
