"""Session messages acp-tray sends must validate against the official v1 schemas, and what it reads
from agents (capabilities, permission requests, message chunks) must survive garbage."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from acp_tray.protocol.session import (
    AgentCapabilities,
    agent_capabilities,
    cancel_params,
    cancelled,
    load_session_params,
    message_text,
    parse_permission_request,
    prompt_params,
    resume_session_params,
    selected,
)
from tests.support.schemas import schema, validator_for

CWD = "/home/me/project"

# (schema definition, a message acp-tray builds, a way to break it that the schema must refuse)
MESSAGES: list[tuple[str, Callable[[], dict[str, Any]], Callable[[dict[str, Any]], None]]] = [
    ("PromptRequest", lambda: prompt_params("sess-1", "fix the tests"), lambda m: m["prompt"][0].pop("type")),
    ("PromptRequest", lambda: prompt_params("sess-1", ""), lambda m: m.pop("sessionId")),
    ("CancelNotification", lambda: cancel_params("sess-1"), lambda m: m.update(sessionId=7)),
    ("LoadSessionRequest", lambda: load_session_params("sess-1", CWD), lambda m: m.pop("mcpServers")),
    ("LoadSessionRequest", lambda: load_session_params("sess-1", CWD), lambda m: m.pop("cwd")),
    ("ResumeSessionRequest", lambda: resume_session_params("sess-1", CWD), lambda m: m.pop("sessionId")),
    ("RequestPermissionResponse", lambda: selected("allow-once"), lambda m: m["outcome"].pop("optionId")),
    ("RequestPermissionResponse", cancelled, lambda m: m["outcome"].update(outcome="approved")),
]


def definition_exists(name: str, unstable: bool) -> bool:
    return name in schema("v1", unstable)["$defs"]


@pytest.mark.parametrize("unstable", [True, False], ids=["unstable", "stable"])
@pytest.mark.parametrize(("name", "build", "_break"), MESSAGES, ids=[f"{m[0]}-{i}" for i, m in enumerate(MESSAGES)])
def test_sent_messages_validate_and_the_check_can_fail(
    name: str, build: Callable[[], dict[str, Any]], _break: Callable[[dict[str, Any]], None], unstable: bool
) -> None:
    if not definition_exists(name, unstable):
        pytest.skip(f"{name} is not in the {'unstable' if unstable else 'stable'} v1 schema")
    validator = validator_for("v1", name, unstable)
    message = build()
    errors = list(validator.iter_errors(message))
    assert not errors, errors[0].message
    broken = build()
    _break(broken)
    assert not validator.is_valid(broken), f"the {name} validator accepted a broken message: {broken}"


def test_the_messages_carry_what_the_person_asked_for() -> None:
    assert prompt_params("sess-1", "fix the tests") == {
        "sessionId": "sess-1",
        "prompt": [{"type": "text", "text": "fix the tests"}],
    }
    assert cancel_params("sess-9")["sessionId"] == "sess-9"
    load = load_session_params("sess-2", CWD)
    assert (load["sessionId"], load["cwd"]) == ("sess-2", CWD)
    resume = resume_session_params("sess-3", CWD)
    assert (resume["sessionId"], resume["cwd"]) == ("sess-3", CWD)
    assert selected("x")["outcome"]["optionId"] == "x"


@pytest.mark.parametrize("unstable", [True, False], ids=["unstable", "stable"])
def test_declining_an_elicitation_validates(unstable: bool) -> None:
    if not definition_exists("CreateElicitationResponse", unstable):
        pytest.skip("CreateElicitationResponse is not in the stable v1 schema (elicitation is unstable)")
    validator = validator_for("v1", "CreateElicitationResponse", unstable)
    assert validator.is_valid({"action": "decline"})
    assert not validator.is_valid({})
    assert not validator.is_valid({"action": None})


# --- reading the agent's initialize answer ----------------------------------------------------------


def test_capabilities_of_a_capable_agent() -> None:
    caps = agent_capabilities(
        {
            "protocolVersion": 1,
            "agentCapabilities": {"loadSession": True, "sessionCapabilities": {"resume": {}}},
            "agentInfo": {"name": "claude-code", "title": "Claude Code", "version": "1.0"},
        }
    )
    assert caps == AgentCapabilities(load_session=True, resume_session=True, name="Claude Code")


def test_the_agent_name_falls_back_to_name_without_a_title() -> None:
    assert agent_capabilities({"agentInfo": {"name": "gemini"}}).name == "gemini"
    assert agent_capabilities({"agentInfo": {"name": "gemini", "title": ""}}).name == "gemini"


def test_a_garbage_title_falls_back_to_the_name() -> None:
    assert agent_capabilities({"agentInfo": {"name": "gemini", "title": 5}}).name == "gemini"


@pytest.mark.parametrize(
    "result",
    [
        None,
        5,
        "initialized",
        [],
        {},
        {"agentCapabilities": None, "agentInfo": None},
        {"agentCapabilities": [], "agentInfo": "claude"},
        {"agentCapabilities": {"loadSession": "yes", "sessionCapabilities": {"resume": True}}},
        {"agentCapabilities": {"loadSession": 1, "sessionCapabilities": "resume"}},
        {"agentCapabilities": {"sessionCapabilities": {"resume": None}}, "agentInfo": {"name": 42}},
        {"agentInfo": {"title": ["x"], "name": None}},
    ],
)
def test_capabilities_from_garbage_are_none(result: object) -> None:
    assert agent_capabilities(result) == AgentCapabilities(load_session=False, resume_session=False, name=None)


def test_only_the_advertised_capability_is_read() -> None:
    load_only = agent_capabilities({"agentCapabilities": {"loadSession": True}})
    assert load_only.load_session and not load_only.resume_session
    resume_only = agent_capabilities({"agentCapabilities": {"sessionCapabilities": {"resume": {}}}})
    assert resume_only.resume_session and not resume_only.load_session


# --- reading a permission request -------------------------------------------------------------------


def test_a_permission_request_is_read() -> None:
    request = parse_permission_request(
        {
            "sessionId": "sess-1",
            "toolCall": {"toolCallId": "t1", "title": "Delete build/", "kind": "delete"},
            "options": [
                {"optionId": "a", "name": "Allow", "kind": "allow_once"},
                {"optionId": "r", "name": "Reject", "kind": "reject_once"},
            ],
        }
    )
    assert request.session_id == "sess-1"
    assert request.title == "Delete build/"
    assert [(o.option_id, o.name, o.kind) for o in request.options] == [
        ("a", "Allow", "allow_once"),
        ("r", "Reject", "reject_once"),
    ]


@pytest.mark.parametrize(
    ("tool_call", "title"),
    [
        ({"toolCallId": "t1", "kind": "delete"}, "a tool call (delete)"),
        ({"toolCallId": "t1", "kind": "delete", "title": "   "}, "a tool call (delete)"),
        ({"toolCallId": "t1", "kind": "delete", "title": 5}, "a tool call (delete)"),
        ({"toolCallId": "t1"}, "a tool call"),
        ({"toolCallId": "t1", "kind": ""}, "a tool call"),
        ({"toolCallId": "t1", "kind": 3}, "a tool call"),
        ("not an object", "a tool call"),
        (None, "a tool call"),
    ],
)
def test_a_missing_title_is_told_from_the_kind(tool_call: object, title: str) -> None:
    assert parse_permission_request({"sessionId": "s", "toolCall": tool_call, "options": []}).title == title


@pytest.mark.parametrize("params", [None, 5, "x", [], {}, {"sessionId": 5, "options": {"a": 1}}])
def test_a_garbage_permission_request_is_read_as_empty(params: object) -> None:
    request = parse_permission_request(params)
    assert request.session_id == ""
    assert request.title == "a tool call"
    assert request.options == ()


def test_options_without_a_string_id_are_left_out_and_gaps_filled() -> None:
    options = parse_permission_request(
        {
            "sessionId": "s",
            "options": [
                None,
                "allow",
                {"name": "No id", "kind": "allow_once"},
                {"optionId": 7, "name": "Numeric id", "kind": "allow_once"},
                {"optionId": "keep", "kind": "allow_always"},  # no name: shown by its id
                {"optionId": "odd", "name": "", "kind": 9},  # empty name, kind not a string
            ],
        }
    ).options
    assert [(o.option_id, o.name, o.kind) for o in options] == [
        ("keep", "keep", "allow_always"),
        ("odd", "odd", ""),
    ]


# --- reading message chunks -------------------------------------------------------------------------


def test_message_text_reads_text_content() -> None:
    update = {"sessionUpdate": "agent_message_chunk", "content": {"type": "text", "text": "Done. 3 files changed."}}
    assert message_text(update) == "Done. 3 files changed."


@pytest.mark.parametrize(
    "update",
    [
        {"sessionUpdate": "agent_message_chunk", "content": {"type": "image", "data": "AAAA", "mimeType": "image/png"}},
        {"sessionUpdate": "agent_message_chunk", "content": {"type": "resource_link", "uri": "file:///x", "name": "x"}},
        {"sessionUpdate": "agent_message_chunk", "content": {"type": "text", "text": 5}},
        {"sessionUpdate": "agent_message_chunk", "content": {"type": "text"}},
        {"sessionUpdate": "agent_message_chunk", "content": "plain string"},
        {"sessionUpdate": "agent_message_chunk"},
        {},
    ],
)
def test_message_text_is_none_for_anything_but_text(update: dict[str, Any]) -> None:
    assert message_text(update) is None
