"""The real Claude agent's usage under acp-tray (claude-agent-acp 0.101.0 with its model API stood
in for, see test_claude_agent.py): after a turn, its session shows the title Claude gave it, the
context window Claude reports (the stand-in's token counts) and the cost Claude works out, and
`status` shows what today cost; over ACP 2 and 1. (Claude Code passes its plan's rate limits on
only to plan users, not to an API key: the rate-limit warning is tested with the SDK agent,
tests/interop/test_typescript_usage.py.)"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.conformance.claude_host import NAME, PROTOCOLS, READY, claude
from tests.support.daemons import DaemonProcess, cli
from tests.support.fake_anthropic import HELLO, INPUT_TOKENS, OUTPUT_TOKENS
from tests.support.waiting import until


def session_row() -> dict[str, Any] | None:
    rows = json.loads(cli("sessions", "--json").stdout)
    row = next((r for r in rows if r["agent"] == NAME and r["session_id"]), None)
    return row if row and row["usage"] and row["usage"]["cost"] and row["title"] else None


@pytest.mark.parametrize("protocol", PROTOCOLS)
def test_a_turns_title_context_and_cost(protocol: int | None, tmp_path: Path, daemons: list[DaemonProcess]) -> None:
    with claude(tmp_path, daemons, protocol) as agent:
        agent.connected(protocol or 2)
        prompt = cli("prompt", NAME, "hello", timeout=READY)
        assert prompt.returncode == 0 and HELLO in prompt.stdout, prompt

        row = until(session_row, what="claude's title and usage with its cost")
        assert row["title"] == "Fake session"  # the stand-in's answer when Claude Code names a session
        usage = row["usage"]
        assert usage["used"] == INPUT_TOKENS + OUTPUT_TOKENS and usage["size"] == 1_000_000, usage
        assert usage["cost"]["currency"] == "USD" and usage["cost"]["text"] == "0.0054 USD", usage
        assert usage["turn"] == usage["cost"], usage  # the session's first turn: all of its cost
        listed = cli("sessions").stdout
        assert "“Fake session”" in listed and "turn 0.0054 USD" in listed, listed
        status = json.loads(cli("status", "--json").stdout)
        assert [c["text"] for c in status["today"]] == ["0.0054 USD"]
        assert "today 0.0054 USD" in cli("status").stdout
        agent.sent_as_the_schema_says()
