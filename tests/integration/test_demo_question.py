"""The demo agent asks a question when a prompt mentions one (what the README's pictures show): over
ACP 1 and 2, the real daemon puts its form to the person (a colour of three, required, and a note),
and the reply says the answer as the agent got it."""

from __future__ import annotations

import json
import sys
from typing import Any

import pytest

from tests.support.agents import agent_table
from tests.support.daemons import DaemonProcess, cli, cli_started
from tests.support.waiting import until
from tests.support.window import headless_daemon


def waiting() -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = json.loads(cli("questions", "--json").stdout)
    return rows


@pytest.mark.parametrize("version", [1, 2])
def test_the_demo_agent_asks_a_question_and_says_the_answer(daemons: list[DaemonProcess], version: int) -> None:
    demo = [sys.executable, "-m", "acp_tray", "demo-agent", f"--protocol={version}"]
    headless_daemon(daemons, agent_table("demo", demo, {"ACP_TRAY_DEMO_INTERVAL": "0.05"}, protocol=version))
    prompt = cli_started("prompt", "demo", "ask me a question")
    (question,) = until(waiting, what="the demo's question")
    assert (question["agent"], question["message"]) == ("demo", "Which colour should the button be?")
    assert [(f["name"], f["required"]) for f in question["fields"]] == [("colour", True), ("note", False)]
    assert "colour (required): one of: blue (Blue), green (Green), orange (Orange)" in cli("questions").stdout
    answered = cli("answer", question["id"], "colour=green", "note=rounded, please")
    assert answered.returncode == 0, answered.stderr
    out, err = prompt.communicate(timeout=30)
    assert "You chose green ('rounded, please')." in out, (out, err)
    assert "I only demonstrate notices, approvals, questions and streaming." in out
