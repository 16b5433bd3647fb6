"""The real-agent conformance suite, sign-in: agents no one here wrote that want a sign-in before
any session (gemini-cli, qwen-code, GitHub Copilot CLI), hosted as a person runs them, with no
one's credentials (a HOME of their own) and no network but the package registries.

Each reaches "needs sign-in" once, with no crash and no restart; `login` offers the agent's own
methods, a terminal login declared the older ways (Copilot's `_meta["terminal-auth"]`, qwen's
`_meta.type`) shown as its command and run here, never sent to `authenticate`; a sign-in in the
browser given up on (gemini's Google login, which holds a callback port while it waits) is ended
in the agent, so that a retry works; and `quit` leaves no process of the agent's tree.
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from acp_tray.files import paths
from tests.conformance.hosting import (
    READY,
    SignInCase,
    history_titles,
    hosted,
    quit_leaves_nothing,
    status_row,
    tree_processes,
)
from tests.real_agents import npm_bin
from tests.support.config import history
from tests.support.daemons import DaemonProcess, cli, cli_env
from tests.support.repo import ROOT
from tests.support.waiting import until


def cases() -> list[Any]:
    gemini = {
        "oauth-personal": "agent",
        "gemini-api-key": "agent",
        "vertex-ai": "agent",
        "gateway": "agent",
    }
    return [
        pytest.param(
            lambda: SignInCase("gemini", [*npm_bin("gemini"), "--acp"], "Gemini API key is missing", gemini),
            id="gemini-cli",
        ),
        pytest.param(  # its one method is typed only in `_meta`: {"type": "terminal", "args": [...]}
            lambda: SignInCase(
                "qwen",
                [*npm_bin("qwen"), "--acp"],
                "Authentication required: Use Qwen Code CLI to authenticate first.",
                {"openai": "terminal"},
                terminal="--auth-type=openai",
            ),
            id="qwen-code",
        ),
        pytest.param(  # `_meta["terminal-auth"]`: its own binary's full path, and `login`
            lambda: SignInCase(
                "copilot",
                [*npm_bin("copilot"), "--acp"],
                "Authentication required",
                {"copilot-login": "terminal"},
                terminal="/copilot login",
            ),
            id="copilot",
        ),
    ]


def agent_root(daemon: DaemonProcess, marker: str) -> int:
    """The agent's process that the daemon started (its tree's root)."""
    roots = set(daemon.children()) & set(tree_processes(marker))
    assert len(roots) == 1, roots
    return roots.pop()


def starts(name: str) -> int:
    """How many times the daemon started the agent's process (its log's "running as pid" lines)."""
    log = paths.log_file().read_text(encoding="utf-8")
    return log.count(f"acp_tray.agent.{name}: running as pid ")


def login(*args: str, timeout: float = 90) -> subprocess.CompletedProcess[str]:
    """`acp-tray login ARGS...` with no terminal to ask in (stdin is not one) and nothing to read, and
    no desktop (as over SSH): a terminal login then takes its no-browser way (copilot's device code),
    which fails offline, where with a browser it would wait for the person to finish there."""
    desk = ("BROWSER", "DISPLAY", "WAYLAND_DISPLAY")
    return subprocess.run(
        [sys.executable, "-m", "acp_tray", "login", *args], stdin=subprocess.DEVNULL, capture_output=True, text=True,
        env={k: v for k, v in cli_env().items() if k not in desk}, cwd=ROOT, timeout=timeout,
    )  # fmt: skip


def login_started(*args: str) -> subprocess.Popen[str]:
    """`acp-tray login ARGS...` left running (no terminal), its output piped."""
    return subprocess.Popen(
        [sys.executable, "-m", "acp_tray", "login", *args],
        stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=cli_env(), cwd=ROOT,
    )  # fmt: skip


@pytest.mark.parametrize("make", cases())
def test_a_real_agent_needs_sign_in_once_with_no_crash_and_no_restart(
    make: Any, tmp_path: Path, daemons: list[DaemonProcess]
) -> None:
    case: SignInCase = make()
    marker = str(tmp_path)
    daemon = hosted(case, tmp_path, daemons)
    try:
        row = status_row(case.name)
        assert case.refusal in row["detail"] and f"acp-tray login {case.name}" in row["detail"], row
        assert "{" not in row["detail"], row  # the agent's words, not its refusal's JSON `data`
        assert {m["id"]: m["kind"] for m in row["sign_in_methods"]} == case.methods
        root = agent_root(daemon, marker)

        prompt = cli("prompt", case.name, "hello", timeout=60)
        assert prompt.returncode == 1 and f"acp-tray login {case.name}" in prompt.stderr, prompt
        assert "Traceback" not in prompt.stderr

        # one start (and at most the one protocol fallback: offered ACP 2, it answers 1), one
        # notice, no crash: the same process still waits for the sign-in
        assert starts(case.name) <= 2
        assert history_titles(case.name).count(f"Sign in to {case.name}") == 1
        assert "Crashed" not in history_titles(case.name)
        assert agent_root(daemon, marker) == root and status_row(case.name)["state"] == "needs sign-in"
        quit_leaves_nothing(daemon, marker)
    finally:
        for pid in tree_processes(marker):  # a failed run must not leave them behind
            os.kill(pid, signal.SIGKILL)


@pytest.mark.parametrize("make", cases())
def test_login_offers_the_agents_own_methods(make: Any, tmp_path: Path, daemons: list[DaemonProcess]) -> None:
    """Without a terminal to ask in, `login NAME` with several methods names them all and says to
    choose one; a terminal login is shown as its command (in the sign-in notice, and before it
    runs here), and fails offline, and can be tried again: the agent still waits, not restarted."""
    case: SignInCase = make()
    marker = str(tmp_path)
    daemon = hosted(case, tmp_path, daemons)
    try:
        root = agent_root(daemon, marker)
        if case.terminal is None:
            offered = login(case.name)
            said = offered.stdout + offered.stderr
            assert offered.returncode != 0 and "Traceback" not in said, offered
            assert f"acp-tray login {case.name} " in said and all(method in said for method in case.methods), said
        else:
            notice = next(r for r in history() if r["title"] == f"Sign in to {case.name}")
            assert case.terminal in str(notice["description"]), notice  # the command, before anything runs
            for _ in range(2):  # and once more: a failed terminal login leaves a retry working
                tried = login(case.name)
                assert "Traceback" not in tried.stderr and case.terminal in tried.stdout, tried
                assert tried.returncode != 0, tried  # not signed in: the agent still refuses
                assert status_row(case.name)["state"] == "needs sign-in"
        assert status_row(case.name)["state"] == "needs sign-in"
        assert agent_root(daemon, marker) == root
        quit_leaves_nothing(daemon, marker)
    finally:
        for pid in tree_processes(marker):
            os.kill(pid, signal.SIGKILL)


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def listening(port: int) -> bool:
    """Whether something listens on 127.0.0.1:`port` (a bind that only a listener makes fail)."""
    with socket.socket() as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind(("127.0.0.1", port))
        except OSError:
            return True
        return False


def given_up(login: subprocess.Popen[str]) -> str:
    """Ctrl+C in a waiting `login`: it ends at once, in plain words; what it printed."""
    login.send_signal(signal.SIGINT)
    out, err = login.communicate(timeout=30)
    assert login.returncode != 0 and "Traceback" not in err, (out, err)
    return out + err


def test_a_browser_sign_in_given_up_on_is_ended_in_the_agent_and_a_retry_works(
    tmp_path: Path, daemons: list[DaemonProcess], desktop: Any
) -> None:
    """gemini-cli's "Log in with Google", with a display (else it asks for a code on its own
    stdin, the ACP connection): it starts a callback server on OAUTH_CALLBACK_PORT, asks the
    browser ($BROWSER: the tests' recorder) to open Google's page, and keeps `authenticate` open
    for up to 5 minutes. Given up on, the sign-in must end in the agent too (the port freed), and
    a second try must get as far as the first (not "address in use")."""
    port = free_port()
    # a display, and none of what makes it think no one is there to use a browser
    env = {"DISPLAY": desktop.env["DISPLAY"], "DEBIAN_FRONTEND": "", "CI": "", "OAUTH_CALLBACK_PORT": str(port)}
    case = SignInCase("gemini", [*npm_bin("gemini"), "--acp"], "", {}, env=env)
    marker = str(tmp_path)
    daemon = hosted(case, tmp_path, daemons)
    try:
        for attempt in ("first", "retry"):
            until(lambda: status_row(case.name)["state"] == "needs sign-in", timeout=READY, what="needs sign-in")
            waiting = login_started(case.name, "oauth-personal")
            until(lambda: listening(port), timeout=60, what=f"gemini's callback server ({attempt})")
            said = given_up(waiting)
            assert "in use" not in said, said
            until(lambda: not listening(port), timeout=30, what=f"the {attempt} sign-in to end in the agent")
        prompt = cli("prompt", case.name, "hello", timeout=60)  # the agent answers, and still wants a sign-in
        assert prompt.returncode == 1 and f"acp-tray login {case.name}" in prompt.stderr, prompt
        assert "Crashed" not in history_titles(case.name)
        quit_leaves_nothing(daemon, marker)
    finally:
        for pid in tree_processes(marker):
            os.kill(pid, signal.SIGKILL)
