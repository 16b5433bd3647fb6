"""What acp-tray sends must validate against the official v1 schemas (stable and unstable)."""

from __future__ import annotations

from typing import Any

import pytest

from acp_tray import __version__
from acp_tray.agents.approvals import policy_outcome
from acp_tray.protocol.initialize import initialize_params_v1, new_session_params
from acp_tray.protocol.session import parse_permission_request
from tests.support.schemas import validator_for


@pytest.mark.parametrize("unstable", [True, False])
def test_initialize_request_validates_against_v1_schema(unstable: bool) -> None:
    validator = validator_for("v1", "InitializeRequest", unstable)
    errors = list(validator.iter_errors(initialize_params_v1()))
    assert not errors, errors[0].message if errors else ""
    # the check can fail: a wrong-shaped capability is refused by the same validator
    broken = initialize_params_v1()
    broken["clientCapabilities"]["session"]["notices"] = True
    assert not validator.is_valid(broken)


def test_initialize_advertises_notices_and_nothing_we_do_not_implement() -> None:
    params = initialize_params_v1()
    assert params["protocolVersion"] == 1
    assert params["clientInfo"]["name"] == "acp-tray"
    assert params["clientInfo"]["version"] == __version__
    caps = params["clientCapabilities"]
    assert caps["session"]["notices"] == {}
    assert caps["session"]["compaction"] == {}  # shown as a turn's state
    assert "fs" not in caps and "terminal" not in caps  # defaults mean "not supported"


def test_withheld_notice_capability_is_absent_not_false() -> None:
    caps = initialize_params_v1(notices=False)["clientCapabilities"]
    assert "notices" not in caps["session"] and caps["session"]["compaction"] == {}  # compaction stays offered
    assert validator_for("v1", "InitializeRequest").is_valid(initialize_params_v1(notices=False))


def test_session_new_validates() -> None:
    validator = validator_for("v1", "NewSessionRequest")
    assert validator.is_valid(new_session_params("/home/me/project"))
    assert not validator.is_valid({"cwd": "/home/me/project"})  # mcpServers is required


@pytest.mark.parametrize(
    ("options", "expected"),
    [
        (
            [
                {"optionId": "a", "name": "Allow", "kind": "allow_once"},
                {"optionId": "r", "name": "Reject", "kind": "reject_once"},
                {"optionId": "ra", "name": "Never", "kind": "reject_always"},
            ],
            {"outcome": "selected", "optionId": "r"},
        ),
        (
            [
                {"optionId": "a", "name": "Allow", "kind": "allow_once"},
                {"optionId": "n", "name": "No", "kind": "reject_always"},
            ],
            {"outcome": "selected", "optionId": "n"},
        ),
        ([{"optionId": "a", "name": "Allow", "kind": "allow_always"}], {"outcome": "cancelled"}),
        ([], {"outcome": "cancelled"}),
    ],
)
def test_reject_policy_answers_safely_and_validates(options: list[dict[str, Any]], expected: dict[str, Any]) -> None:
    params = {"sessionId": "s", "toolCall": {"toolCallId": "t1"}, "options": options}
    outcome = policy_outcome("reject", parse_permission_request(params).options)
    assert outcome is not None
    assert outcome["outcome"] == expected
    assert validator_for("v1", "RequestPermissionResponse").is_valid(outcome)


@pytest.mark.parametrize("params", [None, 5, {"options": "x"}, {"options": [1, None, {"kind": "reject_once"}]}])
def test_permission_request_garbage_is_cancelled(params: object) -> None:
    options = parse_permission_request(params).options
    assert policy_outcome("reject", options) == {"outcome": {"outcome": "cancelled"}}
    assert policy_outcome("allow", options) is None  # nothing to allow with: the person is asked
