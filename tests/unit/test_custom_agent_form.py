"""The agents page's "Add your own agent" form, checked field by field: each problem in plain words
beside its field, and the `agents.add` request the form makes when there is none."""

from __future__ import annotations

from pathlib import Path

from acp_tray.control import api, replies
from acp_tray.window.custom_agent import check, connect_problem
from tests.support.platforms import posix_only


def form(**values: str) -> dict[str, str]:
    return {
        "kind": "local",
        "name": "mine",
        "command": "",
        "url": "",
        "headers": "",
        "cwd": "",
        "permission": "ask",
    } | values


@posix_only("`cat` on PATH and the executable bit")
def test_a_command_is_split_as_a_shell_splits_it_and_its_program_found(tmp_path: Path) -> None:
    checked = check(form(command="cat --flag 'two words'", permission="reject"), set())
    assert checked.errors == {}
    assert checked.request == api.AddArgs("mine", command=["cat", "--flag", "two words"], permission="reject")
    program = tmp_path / "bin" / "agent"
    program.parent.mkdir()
    program.write_text("#!/bin/sh\n")
    program.chmod(0o755)
    relative = check(form(command="bin/agent --acp", cwd=str(tmp_path)), set())
    assert relative.request == api.AddArgs("mine", command=[str(program), "--acp"], cwd=str(tmp_path))
    program.chmod(0o644)
    assert "not a program that can be run" in check(form(command=str(program)), set()).errors["command"]


def test_each_problem_is_said_beside_its_field(tmp_path: Path) -> None:
    cases = {
        "name": (form(name="my agent"), "is not allowed"),
        "command": (form(command="no-such-program-here --acp"), "There is no program called 'no-such-program-here'"),
        "cwd": (form(command="cat", cwd=str(tmp_path / "gone")), "There is no folder"),
    }
    for field, (values, words) in cases.items():
        checked = check(values, set())
        assert checked.request is None and words in checked.errors[field], (field, checked.errors)
    assert "a quote is not closed" in check(form(command="cat 'open"), set()).errors["command"]
    assert "must start with a program" in check(form(command="--acp"), set()).errors["command"]
    assert "is taken" in check(form(command="cat"), {"mine"}).errors["name"]


def test_a_remote_agent_takes_a_websocket_url_and_headers() -> None:
    checked = check(form(kind="remote", url="wss://agents.example.org/acp", headers="X-Token: ${TOKEN}\n\nA: b"), set())
    assert checked.request == api.AddArgs(
        "mine", url="wss://agents.example.org/acp", headers={"X-Token": "${TOKEN}", "A": "b"}
    )
    assert "WebSocket address" in check(form(kind="remote", url="https://x"), set()).errors["url"]
    assert "Line 1 is not" in check(form(kind="remote", url="ws://h", headers="no colon"), set()).errors["headers"]


def test_why_an_added_agent_did_not_connect() -> None:
    refused: replies.WaitReply = {
        "connected": False, "ready": False, "state": "failed",
        "detail": 'handshake refused: Method not found: {"method": "initialize"} (code -32601)',
    }  # fmt: skip
    assert connect_problem(refused, "cat").startswith("'cat' ran, but it does not speak ACP")
    crashed: replies.WaitReply = {"connected": False, "ready": False, "state": "exited", "detail": "exited with code 1"}
    assert "did not connect as an ACP agent (exited with code 1)" in connect_problem(crashed, "x")


def test_the_daemons_verdict_that_a_program_does_not_speak_acp_is_quoted_once() -> None:
    detail = "does not speak ACP (the Agent Client Protocol): it answered `initialize` with an error (Method not found)"
    state: replies.WaitReply = {"connected": False, "ready": False, "state": "failed", "detail": detail}
    assert connect_problem(state, "cat") == f"'cat' ran, but it {detail}."
