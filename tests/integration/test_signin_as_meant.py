"""Sign-in the way each agent's authors meant it, with the daemon, the `acp-tray` command line, the
window and the stdlib sign-in agent (tests/agents/auth_agent.py) as real subprocesses: a terminal
method's args in place of the agent's default args (the ACP Registry's way: for an agent added from
the registry, and for a method typed in `_meta`); an accepted sign-in that changed nothing is not
"signed in"; `login` and a prompt while the agent is still starting; a terminal sign-in for an agent
that refused, and one from the window where no terminal window can open; and plain words where
there is no way to sign in, no keyring, or an error answer to a cancelled sign-in."""

from __future__ import annotations

import html
import json
import signal
import socket
import subprocess
import sys
from pathlib import Path
from urllib.parse import urlencode

import pytest

from acp_tray.files import paths
from tests.support.agents import AUTH_AGENT
from tests.support.config import write_agent_config, write_config
from tests.support.daemons import DaemonProcess, agent_state, cli, cli_env, cli_started, start
from tests.support.registry_server import RegistryServer, binary_distribution, entry, script, tar_gz
from tests.support.signin import received
from tests.support.waiting import until
from tests.support.window import window_process


def locked(tmp_path: Path, command: list[str] | None = None, **env: str) -> Path:
    """The preferences with the sign-in agent `locked` (ACP 1), asking for a sign-in at session/new."""
    agent_env = {"AUTH_AGENT_AT": "new", "AUTH_AGENT_TOKEN": str(tmp_path / "token"), **env}
    agent_env["AUTH_AGENT_LOG"] = str(tmp_path / "agent.jsonl")
    command = command or [sys.executable, str(AUTH_AGENT)]
    return write_agent_config("locked", command, tmp_path, agent_env, extra="protocol = 1\n")


def daemon_with(daemons: list[DaemonProcess], line: str = "locked  SIGN-IN") -> DaemonProcess:
    daemon = DaemonProcess("run", "--headless", env=cli_env())
    daemons.append(daemon)
    daemon.wait_for_line(line)
    return daemon


def methods() -> dict[str, dict[str, object]]:
    row = next(r for r in json.loads(cli("agents", "list", "--json").stdout) if r["name"] == "locked")
    return {m["id"]: m for m in row["sign_in_methods"]}


# 1. a terminal method's args replace the agent's default args -----------------------------------


def test_a_method_typed_in_meta_runs_the_agents_program_without_its_default_args(
    daemons: list[DaemonProcess], tmp_path: Path
) -> None:
    """qwen-code's shape: run as `qwen --acp`, its method `_meta: {type: terminal, args: [...]}`.
    Given after `--acp` the args start another ACP server on the terminal (a blank screen, and
    nothing signed in); in place of it (the registry's convention) they start the sign-in."""
    locked(
        tmp_path, [sys.executable, str(AUTH_AGENT), "--acp"], AUTH_AGENT_EXTRA="meta-tui", AUTH_AGENT_OFFER="meta-tui"
    )
    daemon_with(daemons)
    runs = [sys.executable, str(AUTH_AGENT), "--login"]
    assert methods()["meta-tui"]["command"] == runs  # as listed, and as the notice says
    login = cli("login", "locked", "meta-tui")
    assert f": {' '.join(runs)} (it sets " in login.stdout.splitlines()[0], login.stdout
    assert "auth-agent: signed in" in login.stdout and "locked: signed in · connected" in login.stdout
    assert login.returncode == 0, login.stderr


@pytest.mark.usefixtures("whole_groups")
def test_an_agent_added_from_the_registry_signs_in_with_its_program_and_the_methods_args(
    server: RegistryServer, daemons: list[DaemonProcess], tmp_path: Path
) -> None:
    """A registry entry whose binary runs with `args: ["--acp"]`, and a method `type: terminal` with
    `args: ["--login"]`: acp-tray runs `PROGRAM --login` (AUTHENTICATION.md's example), not
    `PROGRAM --acp --login`."""
    archive = "/dl/locked-1.0.0.tar.gz"
    server.files[archive] = tar_gz({"locked/bin/locked": script(f'exec {sys.executable} {AUTH_AGENT} "$@"')})
    env = {"AUTH_AGENT_AT": "new", "AUTH_AGENT_TOKEN": str(tmp_path / "token"), "AUTH_AGENT_OFFER": "tui"}
    distribution = binary_distribution(server, archive, "./locked/bin/locked", args=["--acp"], env=env)
    write_config(registry=server.publish(entry("locked", "1.0.0", distribution)))
    start(daemons, own_group=True)
    added = cli("agents", "add", "locked")
    assert added.returncode == 0, added.stderr
    program = str(paths.registry_agents_dir() / "locked" / "1.0.0" / "locked" / "bin" / "locked")
    assert methods()["tui"]["command"] == [program, "--login"]
    login = cli("login", "locked", "tui")
    assert "auth-agent: signed in" in login.stdout and "locked: signed in · connected" in login.stdout, login
    assert login.returncode == 0, login.stderr


# 2. an accepted sign-in that changed nothing ----------------------------------------------------


def test_a_sign_in_accepted_by_a_connected_agent_that_changed_nothing_is_not_signed_in(
    daemons: list[DaemonProcess], tmp_path: Path
) -> None:
    """opencode's answer to `authenticate` with its terminal login's id: `{}`, and nothing signed in."""
    locked(tmp_path, AUTH_AGENT_AT="prompt", AUTH_AGENT_EXTRA="hollow")
    daemon_with(daemons, "locked  connected")
    login = cli("login", "locked", "hollow")
    assert login.returncode == 1, login.stdout
    assert "signed in with" not in login.stdout + login.stderr
    said = "locked: locked accepted the sign-in with Method hollow, but nothing changed: it was connected before"
    assert said in login.stderr, login.stderr


# 3. while the agent starts ----------------------------------------------------------------------


def test_login_while_the_agent_starts_waits_for_it_then_signs_in(daemons: list[DaemonProcess], tmp_path: Path) -> None:
    hold = tmp_path / "go"
    locked(tmp_path, AUTH_AGENT_HOLD=str(hold))
    daemon_with(daemons, "control: ")
    login = DaemonProcess("login", "locked", "token", env=cli_env())  # read line by line
    daemons.append(login)
    login.wait_for_line("locked is starting; one moment")  # not "offers no sign-in method"
    hold.touch()
    login.wait_for_line("locked: signed in with Use a token · connected")
    assert login.proc.wait(timeout=30) == 0, login.stderr_text()


def test_a_prompt_waiting_for_a_starting_agent_fails_once_it_needs_a_sign_in(
    daemons: list[DaemonProcess], tmp_path: Path
) -> None:
    hold = tmp_path / "go"
    locked(tmp_path, AUTH_AGENT_HOLD=str(hold))
    daemon_with(daemons, "control: ")
    prompt = cli_started("prompt", "locked", "hello")
    until(lambda: agent_state("locked", cli_env()) == "starting", what="the agent to be starting")
    hold.touch()
    out, err = prompt.communicate(timeout=60)
    assert prompt.returncode == 1, (out, err)
    assert "locked needs you to sign in: `acp-tray login locked`" in err, err  # not "did not connect within 30 s"


# 6. a terminal sign-in needs no running agent; no claim of a window that did not open -------------


def test_a_terminal_sign_in_for_an_agent_that_refused_runs_then_starts_it_again(
    daemons: list[DaemonProcess], tmp_path: Path
) -> None:
    locked(tmp_path, AUTH_AGENT_REFUSAL_CODE="-32603", AUTH_AGENT_REFUSAL="no account here")
    daemon_with(daemons, "locked  REFUSED")
    login = cli("login", "locked", "tui")
    assert "auth-agent: signed in" in login.stdout, login
    assert login.returncode == 0, login.stderr
    until(lambda: agent_state("locked", cli_env()) == "connected", what="the agent started again, signed in")


def test_the_windows_terminal_sign_in_says_so_when_no_terminal_window_can_open(
    daemons: list[DaemonProcess], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """xterm with no display ends at once ("Can't open display"): the page says so, with the command."""
    locked(tmp_path)
    daemon_with(daemons)
    monkeypatch.setenv("TERMINAL", "xterm")  # the window's server inherits it, and no DISPLAY
    monkeypatch.delenv("DISPLAY", raising=False)
    monkeypatch.delenv("WAYLAND_DISPLAY", raising=False)
    with window_process("agents") as window:
        answer = window.request("POST", "/sign-in/locked", body=urlencode({"method": "tui"}).encode())
    said = html.unescape(answer.body)
    assert answer.status == 200 and 'class="toast problem"' in answer.body, said
    assert '<p class="toast problem">no terminal window could open (xterm: DISPLAY is not set)</p>' in said, said
    assert "<summary>Details</summary><ul><li>In a terminal: acp-tray login locked tui</li>" in said, (
        said
    )  # the command
    assert "a terminal window opened" not in said
    assert agent_state("locked", cli_env()) == "needs sign-in"


# 7. plain words --------------------------------------------------------------------------------


def test_a_prompt_to_an_agent_with_no_sign_in_method_does_not_point_to_login(
    daemons: list[DaemonProcess], tmp_path: Path
) -> None:
    locked(tmp_path, AUTH_AGENT_OFFER="", AUTH_AGENT_REFUSAL="Not signed in: run `auggie login` first")
    daemon_with(daemons)
    prompt = cli("prompt", "locked", "hello")
    assert prompt.returncode == 1
    assert "acp-tray login" not in prompt.stderr, prompt.stderr
    assert "sign in its own way, then `acp-tray agents restart locked`" in prompt.stderr, prompt.stderr


def test_a_failed_terminal_sign_in_of_a_connected_agent_says_it_is_as_it_was(
    daemons: list[DaemonProcess], tmp_path: Path
) -> None:
    locked(tmp_path, AUTH_AGENT_AT="prompt")
    daemon_with(daemons, "locked  connected")
    login = cli("login", "locked", "broken-tui")
    assert login.returncode == 1
    assert "did not succeed (exit code 3); locked is as it was: connected" in login.stderr, login.stderr
    assert "still needs it" not in login.stderr


def test_no_keyring_is_said_in_a_plain_sentence_first(tmp_path: Path) -> None:
    env = {**cli_env(), "PYTHON_KEYRING_BACKEND": "keyring.backends.fail.Keyring"}
    stored = subprocess.run(
        [sys.executable, "-m", "acp_tray", "agents", "secret", "locked", "AUTH_AGENT_KEY"],
        input="sk-not-kept\n", capture_output=True, text=True, env=env, timeout=60,
    )  # fmt: skip
    assert stored.returncode != 0
    first = stored.stderr.strip().splitlines()[0]
    assert "there is no OS keyring here to keep it in: on Linux a Secret Service" in first, stored.stderr
    assert "NoKeyringError" not in stored.stderr and "Traceback" not in stored.stderr


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def test_an_error_answer_to_a_cancelled_sign_in_is_no_warning(daemons: list[DaemonProcess], tmp_path: Path) -> None:
    """codex-acp answers `$/cancel_request` (a notification) with an error and no id: nothing is
    wrong, so the console says nothing of it (it is logged at DEBUG)."""
    port = free_port()
    locked(tmp_path, AUTH_AGENT_EXTRA="oauth", AUTH_AGENT_OAUTH_PORT=str(port), AUTH_AGENT_CANCEL_ANSWER="1")
    daemon = daemon_with(daemons)
    login = DaemonProcess("login", "locked", "oauth", env=cli_env())
    daemons.append(login)
    login.wait_for_line("finish signing in there", timeout=20)
    login.proc.send_signal(signal.SIGINT)
    assert login.proc.wait(timeout=30) == 130
    assert "locked cancelled it" in login.stderr_text()
    assert [m for m in received(tmp_path) if m.get("method") == "$/cancel_request"]
    assert cli("quit").returncode == 0
    daemon.proc.wait(timeout=30)
    said = "\n".join([*daemon.seen, *list(daemon.lines.queue), daemon.stderr_text()])
    assert "skipped a message" not in said, said
