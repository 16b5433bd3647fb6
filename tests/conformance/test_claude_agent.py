"""The real Claude agent (@agentclientprotocol/claude-agent-acp 0.101.0, which runs Claude Code)
hosted by acp-tray as a person runs it, with its model API stood in for on 127.0.0.1
(tests/support/fake_anthropic.py), over the protocol it agrees by default (ACP 2) and over
`protocol = 1`: a plain turn finishes; a Bash call asks for approval, and the answer given with
`acp-tray approve` (or `deny`) reaches the model; a refused key is a sign-in, not a failed prompt.
Every message acp-tray sends it is checked against that protocol's schema (a tap on its stdio,
tests/support/wire_tap.py).

Claude Code runs offline here with: ANTHROPIC_BASE_URL (the stand-in), ANTHROPIC_API_KEY (any
value), a HOME of its own whose settings ask before each tool (`permissions.defaultMode =
"default"`: its own default, "auto", lets a model-side classifier decide), IS_SANDBOX=1 as root,
and CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1 and DISABLE_TELEMETRY=1 so that it calls nothing
but the model API.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest

from tests.conformance.claude_host import NAME, PROTOCOLS, READY, claude
from tests.conformance.hosting import history_titles, quit_leaves_nothing, status_row
from tests.support.config import history
from tests.support.daemons import DaemonProcess, cli, cli_started
from tests.support.fake_anthropic import CHOICES, HELLO, QUESTION, TOUCHED
from tests.support.waiting import until


def finished() -> bool:
    return any(title.startswith("Finished") for title in history_titles(NAME))


@pytest.mark.parametrize("protocol", PROTOCOLS)
def test_a_plain_turn_finishes(protocol: int | None, tmp_path: Path, daemons: list[DaemonProcess]) -> None:
    with claude(tmp_path, daemons, protocol) as agent:
        agent.connected(protocol or 2)
        prompt = cli("prompt", NAME, "hello", timeout=READY)
        assert prompt.returncode == 0 and HELLO in prompt.stdout, prompt
        until(finished, what='"Finished" presented')
        assert "Traceback" not in prompt.stderr
        quit_leaves_nothing(agent.daemon, str(agent.folder))
        agent.sent_as_the_schema_says()


def approval(prompt: str) -> tuple[subprocess.Popen[str], dict[str, Any]]:
    """`prompt` sent (its `acp-tray prompt` left waiting), and the one approval it raises."""
    waiting = cli_started("prompt", NAME, prompt)
    (request,) = until(lambda: json.loads(cli("approvals", "--json").stdout), timeout=READY, what="the approval")
    return waiting, request


def ended(waiting: subprocess.Popen[str]) -> str:
    """What a waiting `acp-tray prompt` printed, once it ended well."""
    out, err = waiting.communicate(timeout=READY)
    assert waiting.returncode == 0 and "Traceback" not in err, (out, err)
    return out


@pytest.mark.parametrize("protocol", PROTOCOLS)
def test_a_bash_call_asks_for_approval_and_the_answer_reaches_the_model(
    protocol: int | None, tmp_path: Path, daemons: list[DaemonProcess]
) -> None:
    """Approved, the command runs and the model reads its result; denied, it does not run and the
    model reads that the person refused."""
    mark = tmp_path / TOUCHED
    with claude(tmp_path, daemons, protocol) as agent:
        agent.connected(protocol or 2)
        waiting, request = approval("please run bash")
        assert request["title"] == f"touch {TOUCHED}", request
        assert cli("approve", request["id"]).returncode == 0
        assert "tool_result: (Bash completed with no output)" in ended(waiting)
        assert mark.exists() and agent.api.tool_results() == ["(Bash completed with no output)"]

        mark.unlink()
        waiting, request = approval("run bash again")
        assert cli("deny", request["id"]).returncode == 0
        assert "tool_result: (error) User refused permission to run tool" in ended(waiting)
        assert not mark.exists() and agent.api.tool_results()[-1] == "User refused permission to run tool"
        assert json.loads(cli("approvals", "--json").stdout) == []
        until(finished, what='"Finished" presented')
        quit_leaves_nothing(agent.daemon, str(agent.folder))
        agent.sent_as_the_schema_says()


@pytest.mark.parametrize("protocol", PROTOCOLS)
def test_a_subagents_bash_call_asks_for_approval_too(
    protocol: int | None, tmp_path: Path, daemons: list[DaemonProcess]
) -> None:
    """Claude's subagent (its Agent tool) runs a Bash call of its own: the approval reaches the
    person like its parent's would, and the child's result, then the subagent's, reach the model."""
    with claude(tmp_path, daemons, protocol) as agent:
        agent.connected(protocol or 2)
        waiting, request = approval("use a subagent")
        assert request["title"] == f"touch {TOUCHED}", request
        assert cli("approve", request["id"]).returncode == 0
        said = ended(waiting)
        assert (tmp_path / TOUCHED).exists()
        child, parent = agent.api.tool_results()
        assert child == "(Bash completed with no output)" and f"tool_result: {child}" in parent, (child, parent)
        assert f"tool_result: {parent}" in said
        quit_leaves_nothing(agent.daemon, str(agent.folder))
        agent.sent_as_the_schema_says()


@pytest.mark.parametrize("protocol", PROTOCOLS)
def test_an_approval_says_what_will_run_and_where(
    protocol: int | None, tmp_path: Path, daemons: list[DaemonProcess]
) -> None:
    """The person approves knowing the command, the file it touches and the kind of call, over
    either protocol (ACP 2 sends them in `subject.toolCall`, ACP 1 in `toolCall`)."""
    with claude(tmp_path, daemons, protocol) as agent:
        agent.connected(protocol or 2)
        waiting, request = approval("please run bash")
        (notice,) = [r for r in history() if r["agent"] == NAME and r["title"] == "Needs approval"]
        assert cli("deny", request["id"]).returncode == 0
        ended(waiting)
        said = str(notice["description"]).splitlines()
        assert said[0] == f"{NAME} wants to: touch {TOUCHED}", said
        assert f"Runs: touch {TOUCHED}" in said and "Kind: execute" in said, said
        assert f"Touches: {tmp_path / TOUCHED}" in said, said


@pytest.mark.parametrize("credential", ["refused", "missing"])
@pytest.mark.parametrize("protocol", PROTOCOLS)
def test_a_refused_or_missing_key_is_a_sign_in(
    protocol: int | None, credential: str, tmp_path: Path, daemons: list[DaemonProcess], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Claude starts and opens its session without a usable key; the first turn is refused
    ("Authentication required"): the agent then needs a sign-in, shown once with Claude's own two
    terminal logins, and the prompt says so, rather than a failed prompt of a connected agent."""
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)  # not the daemon's own, if the machine has one
    refused = credential == "refused"
    with claude(tmp_path, daemons, protocol, refuse_credentials=refused, key=refused) as agent:
        agent.connected(protocol or 2)
        prompt = cli("prompt", NAME, "hello", timeout=READY)
        assert prompt.returncode == 1 and "Traceback" not in prompt.stderr, prompt
        assert bool(agent.api.messages()) == refused  # a missing key is refused before any request
        assert f"{NAME} needs you to sign in" in prompt.stderr, prompt.stderr
        until(lambda: status_row(NAME)["state"] == "needs sign-in", what="needs sign-in")
        row = status_row(NAME)
        assert f"acp-tray login {NAME}" in row["detail"] and "{" not in row["detail"], row
        assert {m["id"]: m["kind"] for m in row["sign_in_methods"]} == {
            "claude-ai-login": "terminal",
            "console-login": "terminal",
        }
        titles = history_titles(NAME)
        assert titles.count(f"Sign in to {NAME}") == 1 and "Prompt failed" not in titles, titles
        quit_leaves_nothing(agent.daemon, str(agent.folder))
        agent.sent_as_the_schema_says()


@pytest.mark.parametrize("protocol", PROTOCOLS)
def test_claudes_question_reaches_the_person_and_the_answer_reaches_the_model(
    protocol: int | None, tmp_path: Path, daemons: list[DaemonProcess]
) -> None:
    """Claude's AskUserQuestion, which it offers only to a client that can show a form: the
    question waits in `acp-tray questions` with its choices, and `acp-tray answer` sends the choice
    the model then reads."""
    with claude(tmp_path, daemons, protocol) as agent:
        agent.connected(protocol or 2)
        waiting = cli_started("prompt", NAME, "ask me")

        def waiting_questions() -> list[dict[str, Any]]:
            listed = cli("questions", "--json")
            return json.loads(listed.stdout) if listed.returncode == 0 else []

        until(lambda: waiting_questions() or waiting.poll() is not None, timeout=READY, what="the question")
        (question,) = waiting_questions()  # not a turn that ended without asking
        assert question["agent"] == NAME and question["message"] == QUESTION, question
        choices = {f["name"]: [c["value"] for c in f["choices"]] for f in question["fields"] if f["choices"]}
        assert choices == {"question_0": list(CHOICES)}, question["fields"]
        assert cli("answer", question["id"], "question_0=Blue").returncode == 0
        assert f'"{QUESTION}"="Blue"' in ended(waiting)
        assert f'"{QUESTION}"="Blue"' in agent.api.tool_results()[-1]
        quit_leaves_nothing(agent.daemon, str(agent.folder))
        agent.sent_as_the_schema_says()


@pytest.mark.parametrize("protocol", PROTOCOLS)
def test_a_notice_claude_sends_is_presented_as_its_own(
    protocol: int | None, tmp_path: Path, daemons: list[DaemonProcess]
) -> None:
    """A real notice, sent with no network: Claude Code's hook that adds a `systemMessage` to a
    prompt is told to the person as a `notice` ("UserPromptSubmit says: ..."), presented once as
    claude's, with the turn's answer and its "Finished" as usual."""
    said = {"systemMessage": "Builds are frozen today"}
    hook = {"type": "command", "command": f"echo '{json.dumps(said)}'"}
    with claude(tmp_path, daemons, protocol, hooks={"UserPromptSubmit": [{"hooks": [hook]}]}) as agent:
        agent.connected(protocol or 2)
        prompt = cli("prompt", NAME, "hello", timeout=READY)
        assert prompt.returncode == 0 and HELLO in prompt.stdout, prompt
        notice = "UserPromptSubmit says: Builds are frozen today"
        until(finished, what='"Finished" presented')
        records = [r for r in history() if r["agent"] == NAME and r["source"] == "agent"]
        assert [(r["severity"], r["title"]) for r in records] == [("info", notice)], records
        assert notice not in prompt.stdout  # a notice, not text of the reply
        quit_leaves_nothing(agent.daemon, str(agent.folder))
        agent.sent_as_the_schema_says()


def claude_session() -> dict[str, Any]:
    (row,) = [r for r in json.loads(cli("sessions", "--json").stdout) if r["agent"] == NAME]
    return dict(row)


@pytest.mark.parametrize("protocol", PROTOCOLS)
def test_a_subagents_approval_names_it_and_the_parent_waits_for_you(
    protocol: int | None, tmp_path: Path, daemons: list[DaemonProcess]
) -> None:
    """Claude's subagent (its Agent tool, "Leave a mark", general-purpose) asks to run Bash on its
    own session: the approval says it is the subagent's ("claude › Leave a mark wants to: …"),
    the session lists the subagent and waits for the person, claude is not "Finished" before the
    answer, and the answer reaches the child (over ACP 1 too: acp-tray offers `subagents`)."""
    with claude(tmp_path, daemons, protocol) as agent:
        agent.connected(protocol or 2)
        waiting, request = approval("use a subagent")
        assert (request["subagent"], request["title"]) == ("Leave a mark", f"touch {TOUCHED}"), request
        (notice,) = [r for r in history() if r["agent"] == NAME and r["title"] == "Needs approval"]
        said = str(notice["description"]).splitlines()[0]
        assert said == f"{NAME} › Leave a mark wants to: touch {TOUCHED}", said
        row = claude_session()
        assert row["needs_you"] is True and status_row(NAME)["needs_you"] is True, row
        assert [(c["title"], c["kind"], c["needs_you"]) for c in row["subagents"]] == [
            ("Leave a mark", "general-purpose", True)
        ], row
        assert not finished()
        assert cli("approve", request["id"]).returncode == 0
        ended(waiting)
        assert (tmp_path / TOUCHED).exists()
        until(finished, what='"Finished" presented')
        until(lambda: not claude_session()["needs_you"], what="claude no longer waiting for the person")
        quit_leaves_nothing(agent.daemon, str(agent.folder))
        agent.sent_as_the_schema_says()
