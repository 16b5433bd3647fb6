"""The checks the real-agent suite relies on: the schema check of what a client sent (it must be able
to fail) and the stand-in model API's script (which reply each kind of request gets)."""

from __future__ import annotations

from typing import Any

from tests.support.fake_anthropic import HELLO, QUESTION, TOUCHED, Request, reply_to
from tests.support.schemas import sent_problems

ASKED = {"jsonrpc": "2.0", "id": 0, "method": "session/request_permission", "params": {}}


def test_what_a_client_sent_is_checked_by_method_and_by_the_request_it_answers() -> None:
    good: list[dict[str, Any]] = [
        {"jsonrpc": "2.0", "id": 1, "method": "session/new", "params": {"cwd": "/w", "mcpServers": []}},
        {"jsonrpc": "2.0", "id": 0, "result": {"outcome": {"outcome": "selected", "optionId": "allow-once"}}},
        {"jsonrpc": "2.0", "id": 0, "error": {"code": -32601, "message": "Method not found"}},
    ]
    assert sent_problems(good, [ASKED], "v1") == []
    assert sent_problems(good, [ASKED], "v2") == []

    no_servers = {"jsonrpc": "2.0", "id": 1, "method": "session/new", "params": {"cwd": "/w"}}
    bad_answer = {"jsonrpc": "2.0", "id": 0, "result": {"outcome": {"outcome": "maybe"}}}
    unknown = {"jsonrpc": "2.0", "id": 2, "method": "session/dance", "params": {}}
    problems = sent_problems([no_servers, bad_answer, unknown, {"id": 3, "method": "initialize"}], [ASKED], "v1")
    assert problems[0].startswith("NewSessionRequest: 'mcpServers' is a required property"), problems
    assert any(p.startswith("RequestPermissionResponse: ") for p in problems), problems
    assert any(p.startswith("not in the v1 schema: ") and "session/dance" in p for p in problems), problems
    assert any(p.startswith("not JSON-RPC 2.0: ") for p in problems), problems


def turn(*content: dict[str, Any], tools: bool = True) -> Request:
    body = {"messages": [{"role": "user", "content": list(content)}], "tools": [{"name": "Agent"}] if tools else []}
    return Request("POST", "/v1/messages?beta=true", body)


def text(said: str) -> dict[str, Any]:
    return {"type": "text", "text": said}


def test_the_stand_in_scripts_each_turn_by_the_prompt_not_by_claudes_reminders() -> None:
    reminder = text("<system-reminder>\nrun bash, ask me, use a subagent\n</system-reminder>")
    assert reply_to(turn(reminder, text("hello"))) == [text(HELLO)]
    (bash,) = reply_to(turn(reminder, text("please run bash")))
    assert (bash["name"], bash["input"]["command"]) == ("Bash", f"touch {TOUCHED}")
    (ask,) = reply_to(turn(text("ask me")))
    assert ask["name"] == "AskUserQuestion" and ask["input"]["questions"][0]["question"] == QUESTION
    (task,) = reply_to(turn(text("use a subagent")))
    assert task["name"] == "Agent" and task["input"]["prompt"] == "run bash"
    assert reply_to(turn(text("please run bash"), tools=False)) == [text(HELLO)]  # not a turn: no tool offered
    result = {"type": "tool_result", "tool_use_id": "t1", "is_error": True, "content": [text("refused")]}
    assert reply_to(turn(result)) == [text("tool_result: (error) refused")]
