"""Every error an agent returns is said in plain words: the real daemon hosts the reference
TypeScript SDK's v2 agent (`v2_agent.mjs`) failing a turn (its `idle` state carrying the error) or
refusing the prompt (a JSON-RPC error answer) with payloads real agents send; what the person
reads (the prompt's own answer in the terminal, acp-tray's "Prompt failed" notice in the history
that every surface shows) says what went wrong, never a repr, a dict or JSON."""

from __future__ import annotations

import json
import re

import pytest

from tests.support.agents import agent_table
from tests.support.config import history, write_config
from tests.support.daemons import DaemonProcess, cli, start
from tests.support.repo import ROOT
from tests.support.waiting import until

INTEROP = ROOT / "tests" / "interop"
V2_AGENT = INTEROP / "v2_agent.mjs"
RAW = re.compile(r"[{}\[\]]|': |\": |\\\"")  # what a dict, a repr or JSON leaves in a text

# (the error object, the words a person reads)
PAYLOADS = {
    "codex": (  # codex's failed turn: its error info beside the message
        {
            "code": -32603,
            "message": "Internal error",
            "data": {"message": "You've hit your usage limit.", "codex_error_info": "UsageLimitExceeded"},
        },
        "Internal error: You've hit your usage limit.; usage limit exceeded (code -32603)",
    ),
    "codex-http": (
        {
            "code": -32603,
            "message": "Internal error",
            "data": {"codex_error_info": {"HttpConnectionFailed": {"http_status_code": 502}}},
        },
        "Internal error: http connection failed (HTTP 502) (code -32603)",
    ),
    "claude-api": (  # claude's model API error, its JSON body quoted in the message
        {
            "code": -32603,
            "message": "API Error: 529 "
            + json.dumps({"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}),
        },
        "API Error: 529: Overloaded (code -32603)",
    ),
    "nested": (
        {"code": -32603, "message": "Internal error", "data": {"error": {"message": "rate limited", "trace": [1, 2]}}},
        "Internal error: rate limited (code -32603)",
    ),
    "no-message": ({"code": -32602, "message": {"text": "bad"}}, "invalid parameters (code -32602)"),
}


@pytest.mark.parametrize("how", ["idle", "reject"])
@pytest.mark.parametrize("payload", list(PAYLOADS))
def test_an_agents_error_is_said_in_plain_words_in_the_terminal_and_the_notice(
    node: str, daemons: list[DaemonProcess], payload: str, how: str
) -> None:
    error, words = PAYLOADS[payload]
    env = {"V2_AGENT_FAIL": json.dumps(error), "V2_AGENT_FAIL_AS": how}
    write_config(agent_table("v2agent", [node, str(V2_AGENT)], env), protocol="auto")
    start(daemons, "v2agent")

    failed = cli("prompt", "v2agent", "hello")
    assert failed.returncode != 0
    assert words in failed.stderr, failed.stderr
    assert not RAW.search(failed.stderr), failed.stderr

    # a refusal for a limit ("usage limit", "rate limited") is titled by the limit, the failure in its text
    title = "the usage limit reached" if payload == "codex" else "the rate limit reached" if payload == "nested" else ""

    def told() -> list[str]:
        return [
            r["description"]
            for r in history()
            if r["agent"] == "v2agent" and r["title"].startswith(title or "Prompt failed")
        ]

    (notice,) = until(told, what="acp-tray's notice of the failed prompt")
    assert words in notice and not RAW.search(notice), notice
