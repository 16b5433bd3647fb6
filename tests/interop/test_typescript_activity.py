"""What an agent is doing, with a real agent on the reference TypeScript SDK 2.4.0
(`activity_agent.mjs`), over ACP 1 and 2, hosted by the real daemon and read back with the
person's commands: a subagent's request names the subagent and holds its parent's "Finished"
until it is answered; a session blocked on the person is "waiting for you" in `status`,
`sessions`, `status --watch --json` and `agents list`; an agent's retry words are the turn's
state, a turn gone quiet says so with the command that cancels it, and the cancel works.
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from acp_tray.files import paths
from acp_tray.state.history import read_history
from tests.support.agents import agent_table
from tests.support.config import write_config
from tests.support.daemons import DaemonProcess, cli, cli_env, start
from tests.support.push_server import push_service
from tests.support.repo import ROOT
from tests.support.waiting import until

AGENT = ROOT / "tests" / "interop" / "activity_agent.mjs"
NAME = "act"
PROTOCOLS = [pytest.param(1, id="acp1"), pytest.param(2, id="acp2")]


def records(agent: str) -> list[dict[str, Any]]:
    return [r for r in read_history(paths.history_file()) if isinstance(r, dict) and r.get("agent") == agent]


def events(log: Path, name: str) -> list[dict[str, Any]]:
    """The agent's own log of what it did (ACTIVITY_AGENT_LOG): its events called `name`."""
    lines = log.read_text(encoding="utf-8").splitlines() if log.exists() else []
    return [e for e in map(json.loads, lines) if e["event"] == name]


def quit_daemon(daemon: DaemonProcess) -> None:
    assert cli("quit").returncode == 0
    assert daemon.proc.wait(15) == 0


def hosted(
    node: str, daemons: list[DaemonProcess], tmp_path: Path, protocol: int, turns: str = ""
) -> tuple[DaemonProcess, Path]:
    log = tmp_path / "agent.log"
    command = [node, str(AGENT), f"--protocol={protocol}"]
    table = agent_table(NAME, command, {"ACTIVITY_AGENT_LOG": str(log)}, protocol=protocol)
    write_config(table + (f"[turns]\n{turns}\n" if turns else ""))
    return start(daemons, NAME), log


def prompting(text: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "acp_tray", "prompt", NAME, text],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=cli_env(),
        cwd=ROOT,
    )


def as_json(*command: str) -> Any:
    result = cli(*command, "--json")
    assert result.returncode == 0 and "Traceback" not in result.stderr, result
    return json.loads(result.stdout)


def session() -> dict[str, Any]:
    (row,) = [r for r in as_json("sessions") if r["agent"] == NAME]
    return dict(row)


def agent_row() -> dict[str, Any]:
    return dict(next(a for a in as_json("status")["agents"] if a["name"] == NAME))


def own_titles() -> list[str]:
    return [r["title"] for r in records(NAME) if r["source"] == "acp-tray"]


@pytest.mark.parametrize("protocol", PROTOCOLS)
def test_a_subagents_request_names_it_and_its_parent_is_not_finished_before_the_answer(
    protocol: int, node: str, daemons: list[DaemonProcess], tmp_path: Path
) -> None:
    daemon, log = hosted(node, daemons, tmp_path, protocol)
    if protocol == 1:  # offered in ACP 1 (ACP 2 has subagents in its baseline)
        (initialize,) = events(log, "initialize")
        assert initialize["clientCapabilities"]["subagents"] == {}, initialize
    prompt = prompting("use a subagent")
    try:
        (request,) = until(lambda: as_json("approvals"), what="the child's permission request")
        until(lambda: events(log, "parent ended"), what="the parent's turn to end")
        _, err = prompt.communicate(timeout=30)
        assert prompt.returncode == 0, err
        until(lambda: len(records(NAME)) >= 2, what="the notice and the approval in the history")
        assert "Finished" not in own_titles()  # the parent's turn ended, but its child waits for the person
        assert request["subagent"] == "Child check" and request["title"] == "touch marker", request
        (asked,) = [r for r in records(NAME) if r["title"] == "Needs approval"]
        assert str(asked["description"]).splitlines()[0] == f"{NAME} › Child check wants to: touch marker"
        child_notice = [r["title"] for r in records(NAME) if r["source"] == "agent"]
        assert child_notice == ["Child check › Child notice"], child_notice

        row = session()
        assert row["needs_you"] is True, row
        (child,) = row["subagents"]
        assert (child["title"], child["kind"], child["needs_you"]) == ("Child check", "general-purpose", True), child
        assert agent_row()["needs_you"] is True
        assert "waits for you" in cli("sessions").stdout and "Child check (general-purpose)" in cli("sessions").stdout
        assert "Finished" not in own_titles()

        assert cli("approve", request["id"]).returncode == 0
        until(lambda: "Finished" in own_titles(), what='"Finished" once the child was answered')
        until(lambda: not session()["needs_you"], what="the session no longer waiting")
        assert not agent_row()["needs_you"]
        (answered,) = events(log, "child answered")
        assert answered["answer"] == {"outcome": {"outcome": "selected", "optionId": "allow"}}
    finally:
        if prompt.poll() is None:
            prompt.kill()
    quit_daemon(daemon)


def watched(until_line: Any) -> Iterator[dict[str, Any]]:
    """`acp-tray status --watch --json`, line by line, until `until_line(message)` holds (it is ended then)."""
    watch = subprocess.Popen(
        [sys.executable, "-m", "acp_tray", "status", "--watch", "--json"],
        stdout=subprocess.PIPE,
        text=True,
        env=cli_env(),
        cwd=ROOT,
    )
    try:
        assert watch.stdout is not None
        for line in watch.stdout:
            message = json.loads(line)
            yield message
            if until_line(message):
                return
    finally:
        watch.kill()
        watch.wait(10)


def waits_for_you(message: dict[str, Any]) -> bool:
    agents = [a for a in message.get("agents", []) if a["name"] == NAME]
    sessions = [s for s in message.get("sessions", []) if s["agent"] == NAME]
    return bool(agents and agents[0]["needs_you"] and sessions and sessions[0]["needs_you"])


def test_a_session_blocked_on_the_person_waits_for_you_everywhere(
    node: str, daemons: list[DaemonProcess], tmp_path: Path
) -> None:
    """ACP 2's `requires_action`, with no request sent: status, agents list, sessions and the
    watch stream say the agent waits for the person (not "busy"); a cancel ends it."""
    daemon, log = hosted(node, daemons, tmp_path, 2)
    prompt = prompting("wait for me")
    try:
        until(lambda: events(log, "waiting"), what="the agent blocked on the person")
        lines = list(watched(waits_for_you))
        assert waits_for_you(lines[-1]) and lines[-1]["event"] in ("snapshot", "change"), lines[-1]
        until(lambda: session()["needs_you"], what="the session waiting for you")
        assert agent_row()["needs_you"] is True
        assert [a["needs_you"] for a in as_json("agents", "list") if a["name"] == NAME] == [True]
        said = next(line for line in cli("status").stdout.splitlines() if line.strip().startswith(NAME))
        assert "waits for you" in said, said
        assert cli("cancel", NAME).returncode == 0
        prompt.communicate(timeout=30)
        until(lambda: not session()["needs_you"], what="no longer waiting after the cancel")
    finally:
        if prompt.poll() is None:
            prompt.kill()
    quit_daemon(daemon)


@pytest.mark.parametrize("protocol", PROTOCOLS)
def test_retry_words_are_the_turns_state_and_a_quiet_turn_says_so_with_its_cancel(
    protocol: int, node: str, daemons: list[DaemonProcess], tmp_path: Path
) -> None:
    """codex's "Reconnecting... 2/5" is shown as "reconnecting, 2 of 5"; with `[turns]
    silence_after = 1`, the turn is then "no word from the agent for ..." with the command that
    cancels it, and cancelling ends it (no notification for the silence)."""
    daemon, log = hosted(node, daemons, tmp_path, protocol, turns="silence_after = 1")
    prompt = prompting("retry please")
    try:
        until(lambda: session()["progress"] == "reconnecting, 2 of 5", what="the retry words")
        until(lambda: session()["silent_since"] is not None, what="the silence")
        said = cli("sessions").stdout
        assert "reconnecting, 2 of 5" in said and "no word from the agent for" in said, said
        assert f"cancel it: acp-tray cancel {NAME} --session default" in said, said
        assert cli("cancel", NAME).returncode == 0
        prompt.communicate(timeout=30)
        until(lambda: events(log, "cancel"), what="the cancel to reach the agent")
        until(lambda: session()["silent_since"] is None and session()["progress"] == "", what="the turn's end")
        assert not [r for r in records(NAME) if "no word" in str(r.get("title"))]  # a state, not a notification
    finally:
        if prompt.poll() is None:
            prompt.kill()
    quit_daemon(daemon)


def test_a_subagents_request_names_it_in_the_commands_and_the_push(
    node: str, daemons: list[DaemonProcess], tmp_path: Path, keyring_env: dict[str, str]
) -> None:
    """`acp-tray approvals` (text) and the push through real Apprise say "act › Child check", as
    the notification does."""
    log, token = tmp_path / "agent.log", "hook-Sub7agent"
    table = agent_table(NAME, [node, str(AGENT), "--protocol=2"], {"ACTIVITY_AGENT_LOG": str(log)}, protocol=2)
    write_config('[push]\nwhen = "always"\nkinds = ["approvals"]\n', table)
    with push_service() as service:
        daemon = start(daemons, NAME, env=keyring_env)
        added = subprocess.run(
            [sys.executable, "-m", "acp_tray", "push", "add", "phone"], input=f"json://127.0.0.1:{service.port}/{token}\n",
            capture_output=True, text=True, env=cli_env(**keyring_env), timeout=60,
        )  # fmt: skip
        assert added.returncode == 0, added.stderr
        prompt = prompting("use a subagent")
        try:
            (request,) = until(lambda: as_json("approvals"), what="the child's permission request")
            listed = cli("approvals").stdout
            assert f"[{request['id']}] {NAME} › Child check: touch marker" in listed, listed
            (pushed,) = until(lambda: [r.json() for r in service.received], 30, "the approval's push")
            assert pushed["title"] == f"{NAME}: Needs approval", pushed
            assert pushed["message"].startswith(f"{NAME} › Child check wants: touch marker\n"), pushed
            assert cli("approve", request["id"]).returncode == 0
            prompt.communicate(timeout=30)
        finally:
            if prompt.poll() is None:
                prompt.kill()
    quit_daemon(daemon)
