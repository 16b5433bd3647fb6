"""acp-tray's own notices: which hosting events a person is told about, how loudly, and with what."""

from __future__ import annotations

import sys
from datetime import UTC, datetime

import pytest
from acp.exceptions import RequestError

from acp_tray.agents.turns import error_text
from acp_tray.events import (
    AgentCrashed,
    AgentState,
    AgentStatus,
    InputRequested,
    PermissionAsked,
    PermissionOption,
    PermissionSettled,
    SessionAttached,
    TurnEnded,
)
from acp_tray.presentation.own_notices import OwnNotice, own_notice
from acp_tray.protocol.errors import error_words, limit_refusal


def summary(own: OwnNotice) -> str:
    """What every surface shows: the agent's name, then the title."""
    return f"{own.agent}: {own.notice.title}"


def text_of(own: OwnNotice) -> str:
    return f"{own.notice.title}\n{own.notice.description or ''}"


def notice_of(event: object) -> OwnNotice:
    own = own_notice(event)  # type: ignore[arg-type]
    assert own is not None
    return own


# --- turns --------------------------------------------------------------------------------------


def test_a_finished_turn_is_news() -> None:
    own = notice_of(TurnEnded("claude", "sid-1", "default", "end_turn"))
    assert own.notice.severity == "info"
    assert summary(own) == "claude: Finished"
    assert "session" not in own.notice.title  # the default session is not named
    assert (own.agent, own.session_id) == ("claude", "sid-1")
    assert own.actions == ()


@pytest.mark.parametrize("reason", ["max_tokens", "max_turn_requests", "refusal"])
def test_a_turn_that_stopped_early_is_a_warning(reason: str) -> None:
    own = notice_of(TurnEnded("claude", "sid-1", "default", reason))
    assert own.notice.severity == "warning"
    assert summary(own).startswith("claude: ") and "claude" not in own.notice.title  # said once
    assert "Finished" not in own.notice.title
    # each reason reads differently: the person can tell which limit was hit
    others = {r for r in ("max_tokens", "max_turn_requests", "refusal") if r != reason}
    for other in others:
        assert notice_of(TurnEnded("claude", "s", "default", other)).notice.title != own.notice.title


def test_a_stop_reason_from_the_future_is_a_warning_that_names_it() -> None:
    own = notice_of(TurnEnded("claude", "sid-1", "default", "_paused_for_lunch"))
    assert own.notice.severity == "warning"
    assert "_paused_for_lunch" in text_of(own)


def test_a_failed_prompt_is_an_error_with_the_error_text() -> None:
    own = notice_of(TurnEnded("claude", "sid-1", "default", None, error="Internal error: model overloaded"))
    assert own.notice.severity == "error"
    assert "model overloaded" in text_of(own)
    assert summary(own).startswith("claude: ") and "claude" not in own.notice.title  # said once


AT_14 = datetime(2026, 12, 4, 14, 0, tzinfo=UTC)
AT_1420 = AT_14.timestamp() + 20 * 60


@pytest.mark.parametrize(
    ("code", "message", "data", "said"),
    [
        (-32000, "Claude AI usage limit reached", {"resetsAt": AT_1420}, "the usage limit reached; resets at 14:20"),
        (-32000, "Usage limit reached", {"resetsAt": AT_1420 * 1000}, "the usage limit reached; resets at 14:20"),
        (-32603, "Internal error", {"error": {"type": "rate_limit_error", "retry_after": 1200}},
         "the rate limit reached; resets at 14:20"),
        (-32603, "API Error: 429 Too Many Requests", None, "the rate limit reached"),
        (-32603, "Request failed", {"status": 429, "resets_at": "2026-12-04T14:20:00Z"},
         "the rate limit reached; resets at 14:20"),
        (-32000, "You've hit your limit", {"rateLimitType": "five_hour", "resetsAt": AT_1420, "status": 429},
         "the five-hour limit reached; resets at 14:20"),
    ],
)  # fmt: skip
def test_an_error_that_says_the_agent_hit_a_limit_is_a_limit_notice_with_its_reset(
    code: int, message: str, data: object, said: str
) -> None:
    limit = limit_refusal(code, message, data, AT_14.timestamp())
    own = notice_of(TurnEnded("claude", "s", "default", None, error_words(code, message, data), AT_14, limit))
    assert own.notice.severity == "error" and summary(own) == f"claude: {said}"
    assert own.notice.description == f"The prompt failed: {error_words(code, message, data)}"


@pytest.mark.parametrize(
    ("code", "message", "data"),
    [
        (-32603, "Internal error: model overloaded", None),
        (-32000, "Authentication required", {"authMethods": [{"id": "login", "name": "Log in"}]}),
        (-32602, "invalid rate_limit parameter", None),  # about the request, not a limit hit
        (-32603, "port 4290 busy", {"status": 500}),
    ],
)
def test_an_error_that_is_not_a_limit_stays_a_failed_prompt(code: int, message: str, data: object) -> None:
    assert limit_refusal(code, message, data, AT_14.timestamp()) is None


@pytest.mark.parametrize("reason", ["cancelled", None])
def test_a_cancelled_turn_says_nothing(reason: str | None) -> None:
    assert own_notice(TurnEnded("claude", "sid-1", "default", reason)) is None


@pytest.mark.parametrize(
    "event",
    [
        TurnEnded("claude", "sid-1", "refactor", "end_turn"),
        TurnEnded("claude", "sid-1", "refactor", "max_tokens"),
        TurnEnded("claude", "sid-1", "refactor", None, error="boom"),
    ],
)
def test_a_named_session_is_named(event: TurnEnded) -> None:
    assert "refactor" in notice_of(event).notice.title


# --- permission requests ------------------------------------------------------------------------

OPTIONS = (
    PermissionOption("allow-once", "Allow once", "allow_once"),
    PermissionOption("reject-once", "Reject", "reject_once"),
    PermissionOption("_later", "Ask me later", "_defer"),
)


def test_a_permission_request_is_a_warning_with_the_id_and_a_button_for_every_option() -> None:
    own = notice_of(PermissionAsked("claude", "sid-1", "7", "Delete build/", OPTIONS, 120.0))
    assert own.notice.severity == "warning"
    assert summary(own).startswith("claude: ")
    description = own.notice.description or ""
    assert "Delete build/" in description
    assert "approve 7" in description and "deny 7" in description  # how to answer from a terminal
    assert own.actions == (
        ("approval:7:allow-once", "✔ Allow once"),
        ("approval:7:reject-once", "✖ Reject"),
        ("approval:7:_later", "? _defer: Ask me later"),
    )
    assert own.session_id == "sid-1"


def test_the_request_says_when_it_will_be_cancelled() -> None:
    short = notice_of(PermissionAsked("claude", "s", "1", "t", OPTIONS, 45.0)).notice.description or ""
    long = notice_of(PermissionAsked("claude", "s", "1", "t", OPTIONS, 600.0)).notice.description or ""
    assert "45 s" in short
    assert "10 min" in long


def test_a_request_without_options_offers_no_buttons() -> None:
    assert notice_of(PermissionAsked("claude", "s", "3", "t", (), 60.0)).actions == ()


def test_a_timed_out_request_is_a_warning() -> None:
    own = notice_of(PermissionSettled("claude", "sid-1", "7", "cancelled", "timeout"))
    assert own.notice.severity == "warning"
    assert "7" in text_of(own)
    assert "cancelled" in text_of(own)


@pytest.mark.parametrize("by", ["person", "cancel", "policy", "disconnect"])
def test_other_settlements_say_nothing(by: str) -> None:
    assert own_notice(PermissionSettled("claude", "sid-1", "7", "allow-once", by)) is None


# --- input, crashes, sessions -------------------------------------------------------------------


def test_a_request_for_input_is_a_warning_with_the_agents_message() -> None:
    own = notice_of(InputRequested("claude", "sid-1", "Which branch should I push to?"))
    assert own.notice.severity == "warning"
    assert "Which branch should I push to?" in text_of(own)
    assert own.agent == "claude"


def test_a_crash_with_a_restart_coming_is_a_warning_with_the_delay() -> None:
    own = notice_of(AgentCrashed("claude", "exited with code 1", ("Traceback", "KeyError: 'x'"), 4.0))
    assert own.notice.severity == "warning"
    assert summary(own).startswith("claude: ")
    assert "exited with code 1" in text_of(own)
    assert "4 s" in text_of(own)
    five_minutes = notice_of(AgentCrashed("claude", "exited", (), 300.0))
    assert "5 min" in text_of(five_minutes)


def test_a_crash_given_up_on_is_an_error_with_stderr_and_the_restart_command() -> None:
    stderr = tuple(f"line {n}" for n in range(1, 9))
    own = notice_of(AgentCrashed("claude", "exited with code 3", stderr, None))
    assert own.notice.severity == "error"
    text = text_of(own)
    assert "exited with code 3" in text
    assert "acp-tray agents restart claude" in text
    assert "line 8" in text and "line 7" in text  # the last lines, where the reason usually is
    assert "line 1\n" not in text  # not the whole stderr


def test_a_crash_given_up_on_says_its_stderr_once() -> None:
    """The status detail ends with a hint of the same lines ("; last stderr: a | b"): said once."""
    detail = "exit code 1; last stderr: cannot open config | giving up"
    own = notice_of(AgentCrashed("claude", detail, ("cannot open config", "giving up"), None, 5))
    text = text_of(own)
    assert text.count("cannot open config") == 1 and text.count("giving up") == 1
    assert "\nexit code 1. It crashed 5 times in a row" in text
    assert own.incident == notice_of(AgentCrashed("claude", detail, (), 1.0)).incident != ""  # one incident


def test_a_crash_given_up_on_without_stderr_still_says_how_to_restart() -> None:
    own = notice_of(AgentCrashed("claude", "killed by signal 9", (), None))
    assert own.notice.severity == "error"
    assert "acp-tray agents restart claude" in text_of(own)


def test_a_replaced_session_is_news() -> None:
    own = notice_of(SessionAttached("claude", "refactor", "sid-2", "replaced"))
    assert own.notice.severity == "info"
    assert "refactor" in text_of(own)
    assert own.session_id == "sid-2"


@pytest.mark.parametrize("how", ["new", "loaded", "resumed"])
def test_other_session_attachments_say_nothing(how: str) -> None:
    assert own_notice(SessionAttached("claude", "refactor", "sid-2", how)) is None


def test_status_changes_are_not_own_notices() -> None:
    assert own_notice(AgentStatus("claude", AgentState.CONNECTED)) is None


def test_the_restart_command_is_quoted_for_pasting() -> None:
    """A name the shell would split (one left from before names were checked) still pastes as one word."""
    own = notice_of(AgentCrashed("bad name!", "exited with code 3", (), None))
    quoted = '"bad name!"' if sys.platform == "win32" else "'bad name!'"  # cmd.exe's quoting, or the shell's
    assert f"`acp-tray agents restart {quoted}`" in text_of(own)


@pytest.mark.parametrize(
    ("data", "said"),
    [
        ({"authMethods": [{"id": "openai", "name": "Use OpenAI"}, {"id": "gemini"}]},
         "authenticate first: it offers 2 ways to sign in: Use OpenAI, gemini (code -32000)"),
        ({"details": "token expired"}, "authenticate first: token expired (code -32000)"),
        ({"trace": {"request": "x-internal-7"}}, "authenticate first (code -32000)"),
        ([1, 2, {"a": "b"}], "authenticate first (code -32000)"),
    ],
)  # fmt: skip
def test_a_refusals_data_is_said_only_in_known_shapes(data: object, said: str) -> None:
    assert error_text(RequestError(-32000, "authenticate first", data)) == said


def test_a_refusal_ending_a_sentence_is_followed_by_a_sentence() -> None:
    """qwen-code's refusal ends with a full stop: its ways to sign in follow as a sentence of their
    own, one way said in words ("first. It offers one way", never "first.: it offers 1 way(s)")."""
    refusal = RequestError(
        -32000,
        "Authentication required: Use Qwen Code CLI to authenticate first.",
        {"authMethods": [{"id": "openai", "name": "OpenAI"}]},
    )
    assert error_text(refusal) == (
        "Authentication required: Use Qwen Code CLI to authenticate first. "
        "It offers one way to sign in: OpenAI (code -32000)"
    )
