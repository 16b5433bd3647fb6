"""ACP v2 through the real daemon: negotiation and its fallback, the v2 session lifecycle, what we
send (validated against the official v2 schema), cross-version parity, open unions."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from acp_tray.files import paths
from tests.support.agents import received, session_agent_table
from tests.support.config import history, titles, write_config
from tests.support.daemons import DaemonProcess, cli, cli_env, cli_started, start
from tests.support.schemas import validator_for
from tests.support.waiting import until

# what acp-tray sends, by method, and the v2 definition it must satisfy
SENT = {
    "initialize": "InitializeRequest",
    "session/new": "NewSessionRequest",
    "session/prompt": "PromptRequest",
    "session/cancel": "CancelSessionNotification",
    "session/resume": "ResumeSessionRequest",
    "session/close": "CloseSessionRequest",
}
ANSWERED = {
    "session/request_permission": "RequestPermissionResponse",
    "elicitation/create": "CreateElicitationResponse",
}


def log_entries(log: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in log.read_text().splitlines()] if log.exists() else []


def v2_agent(name: str, log: Path, **env: str) -> str:
    return session_agent_table(name, log, env={"SESSION_AGENT_PROTOCOL": "2", **env})


def test_everything_sent_on_a_v2_connection_validates_against_the_v2_schema(
    daemons: list[DaemonProcess], tmp_path: Path
) -> None:
    log = tmp_path / "v2.log"
    write_config(v2_agent("two", log))
    first = start(daemons, "two")
    assert "ACP 2" in json.dumps(json.loads(cli("status", "--json").stdout))
    assert cli("prompt", "two", "say", "hello").stdout == "hello \n"
    waiting = cli("prompt", "two", "--session", "asks", "--no-wait", "ask")
    assert waiting.returncode == 0
    (request,) = until(lambda: json.loads(cli("approvals", "--json").stdout), what="the v2 permission request")
    assert request["title"] == "Delete build/"  # v2: the title is top level
    assert cli("approve", request["id"]).returncode == 0
    asking = cli_started("prompt", "two", "--session", "asks", "elicit")
    (question,) = until(lambda: json.loads(cli("questions", "--json").stdout), what="the v2 question")
    assert cli("answer", question["id"], "branch=main").returncode == 0
    assert asking.communicate(timeout=30)[0] == 'elicitation=accept {"branch": "main"}\n'
    assert cli("prompt", "two", "elicit-odd").stdout == "elicitation=decline\n"
    cli("prompt", "two", "--session", "slow", "--no-wait", "slow", "20")
    until(lambda: any(e.get("params", {}).get("prompt") for e in log_entries(log)), what="a prompt")
    until(lambda: cli("cancel", "two", "--session", "slow").stdout.startswith("cancelling"), what="the cancel")
    assert cli("quit").returncode == 0
    assert first.proc.wait(15) == 0  # on the way out: session/close for each open session
    start(daemons, "two")
    assert cli("prompt", "two", "--session", "asks", "say", "again").returncode == 0  # reattached with resume
    entries = log_entries(log)
    methods = [e["method"] for e in entries if "method" in e]
    assert {"initialize", "session/new", "session/prompt", "session/cancel", "session/resume", "session/close"} <= set(
        methods
    )
    for entry in entries:
        if entry.get("method") in SENT:
            validator = validator_for("v2", SENT[entry["method"]])
            errors = [e.message for e in validator.iter_errors(entry["params"])]
            assert not errors, (entry["method"], entry["params"], errors)
        elif entry.get("answer_to") in ANSWERED:
            validator = validator_for("v2", ANSWERED[entry["answer_to"]])
            assert validator.is_valid(entry["result"]), entry
    initialize = next(e["params"] for e in entries if e.get("method") == "initialize")
    assert initialize["protocolVersion"] == 2 and initialize["info"]["name"] == "acp-tray"
    assert "notices" not in json.dumps(initialize["capabilities"])  # v2 has no notice capability
    # the turns ended by state_update idle, each presented once
    assert "two: Finished" in titles()


def test_a_v1_only_agent_offered_2_continues_on_v1_with_notices_and_is_remembered(
    daemons: list[DaemonProcess], tmp_path: Path
) -> None:
    log = tmp_path / "v1.log"
    # demo1: the bundled demo agent as a v1-only agent (it reads the v1 fields of whatever it is offered)
    demo1 = '[agents.demo1]\ncommand = ["acp-tray", "demo-agent", "--protocol", "1"]\n'
    write_config(session_agent_table("one", log) + demo1)
    first = start(daemons, "one", "demo1")
    offers = [p["protocolVersion"] for p in received(log, "initialize")]
    assert offers == [2, 1]  # the v2 offer, then a fresh connection offered 1
    until(lambda: len([r for r in history() if r["agent"] == "demo1" and r["source"] == "agent"]) == 4)
    severities = [r["severity"] for r in history() if r["agent"] == "demo1" and r["source"] == "agent"]
    assert severities == ["info", "warning", "error", "_demo.tip"]  # notices, not message-chunk fallbacks
    remembered = json.loads(paths.versions_file().read_text())
    assert remembered["one"]["version"] == 1 and remembered["demo1"]["version"] == 1
    assert cli("prompt", "one", "say", "v1").stdout == "v1 \n"
    assert "ACP 1" in cli("status").stdout
    cli("quit")
    first.proc.wait(15)
    start(daemons, "one", "demo1")
    assert [p["protocolVersion"] for p in received(log, "initialize")] == [2, 1, 1]  # once, not again


def test_an_unsupported_answer_ends_the_connection_with_a_clear_error(
    daemons: list[DaemonProcess], tmp_path: Path
) -> None:
    write_config(session_agent_table("three", tmp_path / "3.log", env={"SESSION_AGENT_PROTOCOL": "3"}))
    daemon = DaemonProcess("run", "--headless", env=cli_env())
    daemons.append(daemon)
    line = daemon.wait_for_line("  three  FAILED")
    assert "protocolVersion 3" in line and "acp-tray speaks ACP 1 and 2" in line
    until(lambda: "three: Unsupported protocol version" in titles(), what="the error notice")
    record = next(r for r in history() if r["title"] == "Unsupported protocol version")
    assert record["severity"] == "error" and "protocolVersion 3" in record["description"]
    status = json.loads(cli("status", "--json").stdout)["agents"][0]
    assert status["state"] == "failed"
    assert len(received(tmp_path / "3.log", "initialize")) == 1  # not retried


def test_a_v2_only_agent_pinned_to_1_and_a_sign_in_are_errors_the_person_can_act_on(
    daemons: list[DaemonProcess], tmp_path: Path
) -> None:
    write_config(
        v2_agent(
            "pinned",
            tmp_path / "p.log",
        ).replace("[agents.pinned]\n", "[agents.pinned]\nprotocol = 1\n")
        + v2_agent("locked", tmp_path / "l.log", SESSION_AGENT_AUTH="1")
    )
    daemon = DaemonProcess("run", "--headless", env=cli_env())
    daemons.append(daemon)
    daemon.wait_for_lines("  pinned  FAILED", "  locked  SIGN-IN")
    until(lambda: len([r for r in history() if r["severity"] in ("error", "warning")]) == 2, what="two notices")
    records = {r["agent"]: r for r in history() if r["severity"] in ("error", "warning")}
    assert records["pinned"]["title"] == "Unsupported protocol version"
    assert "protocol" in records["pinned"]["description"]
    assert records["locked"]["title"] == "Sign in to locked"  # a state to act on, not a failure
    assert "Log in with a browser (login): run `sa login` once" in records["locked"]["description"]
    assert "acp-tray login locked login" in records["locked"]["description"]


def test_the_same_notice_is_presented_the_same_on_v1_and_v2(daemons: list[DaemonProcess], tmp_path: Path) -> None:
    write_config(session_agent_table("one", tmp_path / "1.log") + v2_agent("two", tmp_path / "2.log"))
    start(daemons, "one", "two")
    for agent in ("one", "two"):
        assert cli("prompt", agent, "notice", "Disk", "almost", "full").returncode == 0
    until(lambda: len([r for r in history() if r["title"] == "Disk almost full"]) == 2, what="both notices")
    one, two = (
        next(r for r in history() if r["title"] == "Disk almost full" and r["agent"] == a) for a in ("one", "two")
    )
    keep = ("severity", "title", "description", "meta", "route", "suppressed", "notified", "tray", "source", "kind")
    assert {k: one[k] for k in keep} == {k: two[k] for k in keep}


def test_unknown_v2_updates_and_extension_severities_pass_through(daemons: list[DaemonProcess], tmp_path: Path) -> None:
    write_config(v2_agent("two", tmp_path / "2.log"))
    daemon = DaemonProcess("run", "--headless", "-v", env=cli_env())
    daemons.append(daemon)
    daemon.wait_for_line("  two  connected")
    result = cli("prompt", "two", "oddities")
    assert result.returncode == 0 and result.stdout == "after the oddities\n"
    until(lambda: any(r["title"] == "Custom" for r in history()), what="the extension notice")
    custom = next(r for r in history() if r["title"] == "Custom")
    assert custom["severity"] == "_acme.alert"  # kept exactly as sent
    malformed = [r for r in history() if r["kind"] == "malformed"]
    assert [(r["field"], r["reason"]) for r in malformed] == [("update.messageId", "missing (required)")]
    assert cli("quit").returncode == 0
    daemon.proc.wait(15)
    assert "malformed session/update (update.messageId" in daemon.stderr_text()
    assert "_acme.progress" not in daemon.stderr_text() and "future_thing" not in daemon.stderr_text()


@pytest.mark.parametrize("preference", ["1", "2"])
def test_a_global_protocol_preference_is_what_is_offered(
    preference: str, daemons: list[DaemonProcess], tmp_path: Path
) -> None:
    log = tmp_path / "a.log"
    write_config(
        f"protocol = {preference}\n" + session_agent_table("auto", log, env={"SESSION_AGENT_PROTOCOL": preference})
    )
    start(daemons, "auto")
    assert [p["protocolVersion"] for p in received(log, "initialize")] == [int(preference)]


@pytest.mark.parametrize("protocol", ["1", "2"])
def test_a_permission_request_the_agent_withdraws_is_answered_cancelled_and_leaves_the_list(
    protocol: str, daemons: list[DaemonProcess], tmp_path: Path
) -> None:
    log = tmp_path / "a.log"
    write_config(session_agent_table("sa", log, env={"SESSION_AGENT_PROTOCOL": protocol}))
    start(daemons, "sa")
    release = tmp_path / "withdraw"  # the agent withdraws its request once the test has seen it listed
    waiting = cli("prompt", "sa", "--no-wait", "withdraw", str(release))
    assert waiting.returncode == 0
    until(lambda: json.loads(cli("approvals", "--json").stdout), what="the request")
    release.touch()
    until(lambda: not json.loads(cli("approvals", "--json").stdout), what="the withdrawal", timeout=10)
    until(lambda: any(e.get("answer_to") == "session/request_permission" for e in log_entries(log)), what="answer")
    answer = next(e for e in log_entries(log) if e.get("answer_to") == "session/request_permission")
    assert answer["result"] == {"outcome": {"outcome": "cancelled"}}
    assert validator_for(f"v{protocol}", "RequestPermissionResponse").is_valid(answer["result"])
