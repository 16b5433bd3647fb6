"""Questions (elicitation) with the reference TypeScript SDK (`@agentclientprotocol/sdk` 2.4.0):
`question_agent.mjs` asks over ACP 1 and ACP 2, and the real daemon (`acp-tray run --headless`)
puts each question to the person: `acp-tray questions` lists it, `acp-tray answer` answers it
(values typed by the form), declines or cancels it; unanswered it is cancelled in time and the
person told; a page question shows only its host and closes on `elicitation/complete`. Everything
acp-tray sends the agent (a tap on its stdio, tests/support/wire_tap.py) validates against that ACP
version's schema, its answers too, and no answer reaches the history."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from acp_tray.files import paths
from tests.support.agents import agent_table
from tests.support.config import history, titles, write_config
from tests.support.daemons import DaemonProcess, cli, cli_env, cli_started, start
from tests.support.questions import agent_log, answers, waiting
from tests.support.questions import valid_answers as valid_as_received
from tests.support.repo import ROOT
from tests.support.schemas import tapped_problems
from tests.support.waiting import until
from tests.support.wire_tap import exchanges

AGENT = ROOT / "tests" / "interop" / "question_agent.mjs"
TAP = ROOT / "tests" / "support" / "wire_tap.py"
SECRET_NAME = "Zanzibar-7"  # a value answered: it must reach the agent and nothing else
DEVICE_CODE = "SECRET-DEVICE-CODE"  # in the page's address: shown only when asked for


def one_question() -> dict[str, Any]:
    (question,) = until(waiting, what="the agent's question")
    row: dict[str, Any] = question
    return row


def wire(log: Path) -> Path:
    """The tap's log of the agent's stdio, beside the agent's own log."""
    return log.with_suffix(".wire")


def start_asker(daemons: list[DaemonProcess], node: str, log: Path, version: int, **settings: Any) -> DaemonProcess:
    command = [sys.executable, str(TAP), str(wire(log)), node, str(AGENT), f"--version={version}"]
    write_config(agent_table("asker", command, {"QUESTION_AGENT_LOG": str(log)}, protocol=version, **settings))
    return start(daemons, "asker")


def valid_answers(path: Path, version: int) -> None:
    """The answers as the agent got them are `version`'s, and so is everything acp-tray sent it."""
    valid_as_received(path, version)
    sent = [m for side, m in exchanges(wire(path)) if side == "client"]
    assert [m["params"]["protocolVersion"] for m in sent if m.get("method") == "initialize"] == [version]
    assert any("result" in m and "action" in m["result"] for m in sent), "no answer on the wire"
    problems = tapped_problems(wire(path))
    assert not problems, problems


@pytest.mark.parametrize("version", [1, 2])
def test_a_form_answered_by_command_reaches_the_agent_typed_and_nowhere_else(
    node: str, daemons: list[DaemonProcess], tmp_path: Path, version: int
) -> None:
    log = tmp_path / "asker.log"
    daemon = start_asker(daemons, node, log, version)
    (init,) = [e for e in agent_log(log) if e["event"] == "initialize"]
    assert init["capabilities"]["elicitation"] == {"form": {}, "url": {}}
    prompt = cli_started("prompt", "asker", "form")
    question = one_question()
    assert question["agent"] == "asker" and question["message"] == "How should the button look?"
    assert [(f["name"], f["kind"], f["required"]) for f in question["fields"]] == [
        ("colour", "string", True),
        ("name", "string", True),
        ("size", "integer", False),
        ("ratio", "number", False),
        ("rounded", "boolean", False),
        ("tags", "array", False),
    ]
    listing = cli("questions").stdout
    assert f"[{question['id']}] asker asks: How should the button look?" in listing
    assert "colour (required): one of: red (Red), blue (Blue) — The button's colour" in listing
    assert "size: a whole number from 1 to 10; default 3" in listing
    until(lambda: "asker: Question" in titles(), what="the question's notice")
    record = next(r for r in history() if r["title"] == "Question")
    assert record["description"].startswith("asker asks: How should the button look?")

    wrong = cli("answer", question["id"], "colour=green", f"name={SECRET_NAME}")
    assert wrong.returncode == 1
    assert "Colour: 'green' is not one of the choices: red (Red), blue (Blue)" in wrong.stderr
    assert "Traceback" not in wrong.stderr and [q["id"] for q in waiting()] == [question["id"]]  # still waits

    values = ["colour=Blue", f"name={SECRET_NAME}", "ratio=0.25", "rounded=yes", "tags=primary,wide"]
    answered = cli("answer", question["id"], *values)
    assert answered.returncode == 0, answered.stderr
    assert answered.stdout == f"question {question['id']}: answered\n"
    out, err = prompt.communicate(timeout=30)
    content = {
        "colour": "blue",
        "name": SECRET_NAME,
        "size": 3,
        "ratio": 0.25,
        "rounded": True,
        "tags": ["primary", "wide"],
    }
    assert out == f"answer: accept {json.dumps(content, separators=(',', ':'))}\n", err
    assert answers(log) == [{"action": "accept", "content": content}]
    valid_answers(log, version)
    assert waiting() == []

    # the history says it was asked and answered; no value is in it, nor in the log or status
    until(lambda: "asker: Question answered" in titles(), what="the record of how it ended")
    assert SECRET_NAME not in paths.history_file().read_text(encoding="utf-8")
    assert SECRET_NAME not in cli("status", "--json").stdout
    assert cli("quit").returncode == 0
    daemon.proc.wait(15)
    assert not [line for line in daemon.err_lines if SECRET_NAME in line]


@pytest.mark.parametrize("version", [1, 2])
def test_a_question_declined_or_cancelled_tells_the_agent_so(
    node: str, daemons: list[DaemonProcess], tmp_path: Path, version: int
) -> None:
    log = tmp_path / "asker.log"
    start_asker(daemons, node, log, version)
    for flag, action, ended in (("--decline", "decline", "declined"), ("--cancel", "cancel", "cancelled")):
        prompt = cli_started("prompt", "asker", "pick")
        question = one_question()
        assert question["message"] == "Which colour should the button be?"
        result = cli("answer", question["id"], flag)
        assert result.returncode == 0 and result.stdout == f"question {question['id']}: {ended}\n", result.stderr
        out, _ = prompt.communicate(timeout=30)
        assert out == f"answer: {action}\n"
        record = f"asker: Question {ended}"
        until(lambda: record in titles(), what="the record of how it ended")  # noqa: B023
    assert answers(log) == [{"action": "decline"}, {"action": "cancel"}]
    valid_answers(log, version)
    gone = cli("answer", "q1", "colour=red")
    assert gone.returncode == 1 and "no pending question 'q1'" in gone.stderr


@pytest.mark.parametrize("version", [1, 2])
def test_an_unanswered_question_is_cancelled_in_time_and_the_person_told(
    node: str, daemons: list[DaemonProcess], tmp_path: Path, version: int
) -> None:
    log = tmp_path / "asker.log"
    start_asker(daemons, node, log, version, permission_timeout=1)
    prompt = cli_started("prompt", "asker", "pick")
    out, _ = prompt.communicate(timeout=30)
    assert out == "answer: cancel\n"  # the agent stops waiting: it was told
    until(lambda: "asker: Question timed out" in titles(), what="the timeout's notice")
    record = next(r for r in history() if r["title"] == "Question timed out")
    assert record["description"] == "Nobody answered question q1 in time, so it was cancelled."
    assert waiting() == []
    valid_answers(log, version)


def test_a_page_question_shows_its_host_and_closes_when_the_agent_completes_it(
    node: str, daemons: list[DaemonProcess], tmp_path: Path
) -> None:
    log = tmp_path / "asker.log"
    start_asker(daemons, node, log, 2)
    prompt = cli_started("prompt", "asker", "url")
    question = one_question()
    assert (question["mode"], question["host"], question["opens"]) == ("url", "auth.example.com", True)
    assert question["url"] == f"https://auth.example.com/device?code={DEVICE_CODE}"  # asked for: the whole address
    listing = cli("questions").stdout
    assert "asker asks: Sign in to the example MCP server" in listing and "a page on auth.example.com" in listing
    assert DEVICE_CODE not in listing and DEVICE_CODE not in cli("status", "--json").stdout
    until(lambda: "asker: Question" in titles(), what="the question's notice")
    record = next(r for r in history() if r["title"] == "Question")
    assert "asker asks you to open a page on auth.example.com" in record["description"]
    assert DEVICE_CODE not in paths.history_file().read_text(encoding="utf-8")

    Path(str(log) + ".complete").touch()  # the agent sends elicitation/complete
    out, _ = prompt.communicate(timeout=30)
    assert out == "answer: cancel\n"
    assert waiting() == []
    until(lambda: "asker: Question cancelled" in titles(), what="the record of how it ended")
    record = next(r for r in history() if r["title"] == "Question cancelled")
    assert "what the page was for is done" in record["description"]
    valid_answers(log, 2)


def test_on_a_terminal_answer_asks_field_by_field(node: str, daemons: list[DaemonProcess], tmp_path: Path) -> None:
    log = tmp_path / "asker.log"
    start_asker(daemons, node, log, 2)
    prompt = cli_started("prompt", "asker", "form")
    question = one_question()
    primary, secondary = os.openpty()
    answering = subprocess.Popen(
        [sys.executable, "-m", "acp_tray", "answer", question["id"]],
        stdin=secondary, stdout=secondary, stderr=secondary, env=cli_env(), cwd=ROOT,
    )  # fmt: skip
    os.close(secondary)
    said = b""
    # each field's label, what it takes and its default; blank keeps the default
    for label, typed in (
        (b"Colour (required) \xe2\x80\x94 one of: red (Red), blue (Blue): ", b"blue"),
        (b"Name (required) \xe2\x80\x94 text: ", b"Ada"),
        (b"Size \xe2\x80\x94 a whole number from 1 to 10 [3]: ", b""),
        (b"Ratio \xe2\x80\x94 a number from 0 to 1: ", b""),
        (b"Rounded corners \xe2\x80\x94 yes or no [no]: ", b"y"),
        (b"Tags \xe2\x80\x94 one or more of: primary, wide, quiet: ", b"quiet"),
    ):
        while label not in said:
            said += os.read(primary, 4096)
        said = said.split(label, 1)[1]
        os.write(primary, typed + b"\n")
    assert answering.wait(30) == 0
    os.close(primary)
    out, _ = prompt.communicate(timeout=30)
    content = {"colour": "blue", "name": "Ada", "size": 3, "rounded": True, "tags": ["quiet"]}
    assert out == f"answer: accept {json.dumps(content, separators=(',', ':'))}\n"
    valid_answers(log, 2)
