"""A question answered from the phone, with the reference TypeScript SDK: `question_agent.mjs`
asks "Which colour should the button be?" (red / blue, over ACP 2), the real headless daemon
pushes it through real Apprise to a stand-in of ntfy with a button per choice, and the "phone"
presses "Blue". The answer reaches the agent (and validates against the schema); the history
says the question was answered from the phone, never what was answered; the phone is told."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from tests.support.agents import agent_table
from tests.support.config import history, write_config
from tests.support.daemons import DaemonProcess, cli_env, cli_started, start
from tests.support.ntfy_stand_in import Phone, ntfy_stand_in
from tests.support.questions import answers, valid_answers, waiting
from tests.support.repo import ROOT
from tests.support.waiting import until

AGENT = ROOT / "tests" / "interop" / "question_agent.mjs"
TOPIC = "asker-Hk2secret"


def test_a_choice_pressed_on_the_phone_reaches_the_sdk_agent(
    node: str, daemons: list[DaemonProcess], tmp_path: Path, keyring_env: dict[str, str]
) -> None:
    log = tmp_path / "asker.log"
    table = agent_table("asker", [node, str(AGENT), "--version=2"], {"QUESTION_AGENT_LOG": str(log)}, protocol=2)
    write_config('[push]\nwhen = "always"\nanswers = true\n', table)
    with ntfy_stand_in() as ntfy:
        start(daemons, "asker", env=keyring_env)
        added = subprocess.run(
            [sys.executable, "-m", "acp_tray", "push", "add", "phone"], input=f"ntfy://127.0.0.1:{ntfy.port}/{TOPIC}\n",
            capture_output=True, text=True, env=cli_env(**keyring_env), timeout=60,
        )  # fmt: skip
        assert added.returncode == 0, added.stderr
        prompt = cli_started("prompt", "asker", "pick")
        until(waiting, what="the agent's question")
        (ask,) = until(lambda: [m for m in ntfy.on(TOPIC) if m.get("actions")], 30, "the push with its buttons")
        assert ask["message"].startswith("It asks: Which colour should the button be?\nAnswer with a button below")
        assert [a["label"] for a in ask["actions"]] == ["Red", "Blue"]
        assert Phone().press(ask, "Blue") == 200
        output, _ = prompt.communicate(timeout=60)
        assert answers(log) == [{"action": "accept", "content": {"colour": "blue"}}], output
        valid_answers(log, 2)
        until(lambda: [m for m in ntfy.on(TOPIC) if m["title"] == "Answered: Blue"], 30, "the phone told")
    (ended,) = [r for r in history() if r["title"] == "Question answered"]
    assert ended["description"].startswith("Question q1 was answered from the phone (target phone).")
    assert "blue" not in ended["description"].lower()  # how it ended, never what was answered
