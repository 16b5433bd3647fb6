"""The real-agent conformance suite: acp-tray, run as a person runs it, against agents no one here
wrote. For each agent: the handshake and the version agreed, the session, a prompt (or the
agent's own refusal, shown clearly), a cancel, a SIGKILL of its whole process tree with a prompt
in flight, and `quit`, after which no process of any of its trees is left.

There is no network but the package registries: the agents cannot reach their model APIs, and
their refusals (sign-in, authentication) are what a person without credentials sees too. The
agents' turns therefore end at once, so the cancel and the SIGKILL land on a prompt just sent
(`--no-wait`), and what is checked is that nothing hangs or leaks and the agent works afterwards.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from tests.conformance.hosting import history_titles, host, quit_leaves_nothing, status_row, tree_processes
from tests.real_agents import npm_bin, npm_package_bin, sdk_example
from tests.support.daemons import DaemonProcess, cli, cli_env, cli_started
from tests.support.repo import ROOT
from tests.support.waiting import until


@dataclass(frozen=True)
class Case:
    name: str
    command: list[str]
    version: int | None  # the version it ends up speaking (None: it wants a sign-in before any session)
    reply: str | None = None  # text a prompt's reply contains; None: the prompt fails with `refusal`
    refusal: str | None = None  # what the person is shown instead of a reply or a session
    env: dict[str, str] = field(default_factory=dict)
    echoes: bool = False  # its reply is the prompt's text


def cases() -> list[Any]:
    root = {"IS_SANDBOX": "1"} if os.geteuid() == 0 else {}  # the Claude SDK refuses root otherwise
    return [
        pytest.param(lambda: Case("sdk-agent", sdk_example("agent.py"), 1, reply="Client sent:"), id="sdk-agent.py"),
        # it answers the version offered (2) in v1's shape: caught, and started again offering 1
        pytest.param(
            lambda: Case("sdk-echo", sdk_example("echo_agent.py"), 1, reply="", echoes=True), id="sdk-echo_agent.py"
        ),
        pytest.param(
            lambda: Case(
                "codex", npm_package_bin("@zed-industries/codex-acp"), None, refusal="Authentication required"
            ),
            id="codex-acp",
        ),
        pytest.param(
            lambda: Case(
                "claude",
                npm_package_bin("@zed-industries/claude-agent-acp", "claude-agent-acp"),
                1,
                refusal="claude needs you to sign in: `acp-tray login claude`",
                env=root,
            ),
            id="claude-agent-acp",
        ),
    ]


def answered(prompt: subprocess.CompletedProcess[str], case: Case) -> bool:
    """The prompt ended as this agent's prompts end: its reply, or its refusal on stderr. (The
    Claude adapter, refused once, sometimes ends a later turn with no text: that ends too.)"""
    if "Traceback" in prompt.stderr:
        return False
    if case.reply is not None:
        reply = prompt.args[-1] if case.echoes else case.reply
        return prompt.returncode == 0 and reply in prompt.stdout
    assert case.refusal is not None
    return (prompt.returncode == 1 and case.refusal in prompt.stderr) or (prompt.returncode, prompt.stdout) == (0, "")


@pytest.mark.parametrize("make", cases())
def test_a_real_agent_end_to_end(make: Any, tmp_path: Path, daemons: list[DaemonProcess]) -> None:
    case: Case = make()
    marker = str(tmp_path)
    daemon = host(case.name, case.command, tmp_path, case.env, daemons)
    try:
        if case.version is None:  # a sign-in before any session: a state, shown once, not a crash
            until(lambda: status_row(case.name)["state"] == "needs sign-in", timeout=60, what="needs sign-in")
            row = status_row(case.name)
            assert case.refusal is not None and case.refusal in row["detail"], row
            assert history_titles(case.name).count(f"Sign in to {case.name}") == 1
            assert tree_processes(marker)  # kept running for the sign-in, not relaunched
            prompt = cli("prompt", case.name, "hello")
            assert prompt.returncode == 1 and f"acp-tray login {case.name}" in prompt.stderr, prompt
            assert "Crashed" not in history_titles(case.name)
        else:
            until(lambda: status_row(case.name)["state"] == "connected", timeout=60, what="connected")
            row = status_row(case.name)
            assert row["detail"].endswith(f"ACP {case.version}") and row["sessions"] == 1, row
            prompt = cli("prompt", case.name, "hello from acp-tray", timeout=60)
            assert answered(prompt, case), prompt
            if case.reply is None:  # the first one is the agent's refusal, not a turn that ends without text
                assert prompt.returncode == 1, prompt

            # a cancel right after a prompt: answered, and the agent goes on working
            queued = cli("prompt", case.name, "--no-wait", "to be cancelled")
            assert queued.returncode == 0, queued.stderr
            cancelled = cli("cancel", case.name)
            assert cancelled.returncode == 0, cancelled.stderr
            assert cancelled.stdout.strip() in ("cancelling the running turn", "nothing was running")
            again = cli("prompt", case.name, "still there", timeout=60)
            assert answered(again, case), again

            # SIGKILL of the whole tree with a prompt in flight: the waiting prompt ends, the tree
            # is gone, and acp-tray starts the agent again
            waiting = subprocess.Popen(
                [sys.executable, "-m", "acp_tray", "prompt", case.name, "killed mid-turn"],
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=True,
                env=cli_env(),
                cwd=ROOT,
            )
            first = tree_processes(marker)
            assert first
            groups = {os.getpgid(pid) for pid in first}
            # its own group: not the daemon's (nor this test's, which a killpg would end too)
            assert groups.isdisjoint({os.getpgrp(), os.getpgid(daemon.proc.pid)}), groups
            for group in groups:
                os.killpg(group, signal.SIGKILL)
            _, killed = waiting.communicate(timeout=60)
            assert "Traceback" not in killed
            until(lambda: not set(first) & set(tree_processes(marker)), what="the killed tree to be gone")
            until(lambda: "Crashed" in history_titles(case.name), timeout=30, what="the crash notice")
            until(lambda: status_row(case.name)["state"] == "connected", timeout=60, what="connected again")
            after = cli("prompt", case.name, "after the kill", timeout=60)
            assert answered(after, case), after
        quit_leaves_nothing(daemon, marker)
    finally:
        for pid in tree_processes(marker):  # a failed run must not leave them behind
            os.kill(pid, signal.SIGKILL)


@pytest.mark.timeout(300)  # its failing turn alone retries for about a minute; on a busy machine the whole takes 2
def test_opencode_connects_without_a_sign_in_fails_a_prompt_in_its_own_words_and_a_cancel_ends_its_turn(
    tmp_path: Path, daemons: list[DaemonProcess]
) -> None:
    """opencode needs no sign-in for its own free models, so it connects; offline, a turn spends
    about a minute retrying its model's API, then fails with its own error. A cancel ends such a
    turn at once."""
    marker = str(tmp_path)
    home = tmp_path / "home"  # no one's credentials or settings
    home.mkdir()
    daemon = host("opencode", [*npm_bin("opencode"), "acp"], tmp_path, {"HOME": str(home)}, daemons)
    try:
        until(lambda: status_row("opencode")["state"] == "connected", timeout=60, what="connected")
        row = status_row("opencode")
        assert row["detail"].endswith("ACP 1") and row["sessions"] == 1, row

        waiting = cli_started("prompt", "opencode", "to be cancelled")
        until(lambda: status_row("opencode")["busy"] == 1, what="its turn running")
        cancelled = cli("cancel", "opencode")
        assert cancelled.returncode == 0 and cancelled.stdout.strip() == "cancelling the running turn", cancelled
        out, said = waiting.communicate(timeout=20)  # long before its retries would have ended
        assert "Traceback" not in said and status_row("opencode")["busy"] == 0, (out, said)
        # its stop reason is opencode's to give: `cancelled` as ACP asks, though a cancel that lands before
        # its turn has reached the model is sometimes ended as a plain `end_turn`, with no text
        assert "the turn ended: cancelled" in said or (waiting.returncode, out.strip()) == (0, ""), (out, said)

        failed = cli("prompt", "opencode", "hello", timeout=180)
        assert failed.returncode == 1, failed
        assert "acp-tray: the prompt failed: " in failed.stderr and "Cannot connect to API" in failed.stderr, failed
        assert "{" not in failed.stderr, failed.stderr  # its words, not its error's JSON `data`
        titles = history_titles("opencode")
        assert "Sign in to opencode" not in titles and "Crashed" not in titles, titles
        quit_leaves_nothing(daemon, marker)
    finally:
        for pid in tree_processes(marker):
            os.kill(pid, signal.SIGKILL)
