"""Sign-in as a person does it: the daemon, the stdlib auth agent (tests/agents/auth_agent.py), the
`acp-tray` command line, and a real Secret Service (GNOME Keyring on a private bus) for secrets."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from acp_tray.files import paths
from tests.support.agents import AUTH_AGENT
from tests.support.config import history, write_agent_config
from tests.support.daemons import DaemonProcess, cli, cli_env
from tests.support.waiting import until

SECRET = "sk-test-Zq9-not-a-real-key"


def write_config(tmp_path: Path, name: str, protocol: int, at: str) -> Path:
    env = {
        "AUTH_AGENT_PROTOCOL": str(protocol),
        "AUTH_AGENT_AT": at,
        "AUTH_AGENT_TOKEN": str(tmp_path / "token"),
        "AUTH_AGENT_LOG": str(tmp_path / "agent.jsonl"),
    }
    return write_agent_config(name, [sys.executable, str(AUTH_AGENT)], tmp_path, env, extra=f"protocol = {protocol}\n")


def agent_row(name: str) -> dict[str, object]:
    rows = json.loads(cli("agents", "list", "--json").stdout)
    row: dict[str, object] = next(r for r in rows if r["name"] == name)
    return row


def test_needs_sign_in_from_a_shell_secret_terminal_method_prompt_logout(
    daemons: list[DaemonProcess], tmp_path: Path, keyring_env: dict[str, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    for key, value in keyring_env.items():
        monkeypatch.setenv(key, value)  # the CLI runs below inherit it (cli_env copies os.environ)
    config = write_config(tmp_path, "locked", 1, "new")
    daemon = DaemonProcess("run", "--headless", env=cli_env())
    daemons.append(daemon)
    daemon.wait_for_line("locked  SIGN-IN")

    row = agent_row("locked")
    assert row["state"] == "needs sign-in"
    assert [m["id"] for m in row["sign_in_methods"]] == ["token", "refuse", "tui", "broken-tui", "key", "sso"]  # type: ignore[attr-defined]
    assert "locked         needs sign-in" in cli("status").stdout
    waited = cli("prompt", "locked", "hello")
    assert waited.returncode == 1
    assert "locked needs you to sign in: `acp-tray login locked`" in waited.stderr

    which = cli("login", "locked")
    assert which.returncode == 1 and "choose one with `acp-tray login locked METHOD`" in which.stderr
    env_var = cli("login", "locked", "key")
    assert env_var.returncode == 1
    assert "API key needs AUTH_AGENT_KEY in locked's environment: keep it in the OS keyring with " in env_var.stderr
    assert "`acp-tray agents secret locked AUTH_AGENT_KEY`" in env_var.stderr
    broken = cli("login", "locked", "broken-tui")
    assert broken.returncode == 1
    assert "auth-agent: sign-in failed" in broken.stdout  # it ran here, in this terminal
    assert "did not succeed (exit code 3); locked still needs a sign-in" in broken.stderr
    assert agent_row("locked")["state"] == "needs sign-in"

    stored = subprocess.run(
        [sys.executable, "-m", "acp_tray", "agents", "secret", "locked", "AUTH_AGENT_KEY"],
        input=SECRET + "\n", capture_output=True, text=True, env=cli_env(), timeout=60,
    )  # fmt: skip
    assert stored.returncode == 0, stored.stderr
    assert "AUTH_AGENT_KEY stored in the OS keyring" in stored.stdout and "restarting" in stored.stdout
    daemon.wait_for_line("locked  SIGN-IN")  # the restarted agent: still not signed in, told once only
    queued = cli("prompt", "--no-wait", "locked", "queued while signed out")
    assert queued.returncode == 0

    signed = cli("login", "locked", "tui")
    assert signed.returncode == 0, signed.stderr
    assert "auth-agent: signed in" in signed.stdout and "locked: signed in · connected" in signed.stdout
    until(lambda: any(r["title"] == "Finished" for r in history()), what="the queued prompt ran")
    reply = cli("prompt", "locked", "env AUTH_AGENT_KEY")
    assert reply.returncode == 0 and reply.stdout.strip() == SECRET  # injected from the keyring at spawn
    assert sum(r["title"] == "Sign in to locked" for r in history()) == 1

    assert cli("logout", "locked").stdout.strip() == "locked: signed out"
    assert not (tmp_path / "token").exists()

    assert daemon.stop() == 0
    names = json.loads(paths.secret_names_file().read_text())
    assert names["agents"] == {"locked": ["AUTH_AGENT_KEY"]} and paths.secret_names_file().stat().st_mode & 0o77 == 0
    for where in (config, paths.history_file(), paths.secret_names_file(), paths.state_dir()):
        files = [where] if where.is_file() else [p for p in where.rglob("*") if p.is_file()]
        for file in files:
            assert SECRET not in file.read_text(errors="replace"), file
    assert SECRET not in daemon.stderr_text() and SECRET not in "\n".join(daemon.seen)
    # it is in the keyring, where it was put
    keyring = subprocess.run(
        [sys.executable, "-c", "import keyring; print(keyring.get_password('acp-tray', 'locked/AUTH_AGENT_KEY'))"],
        capture_output=True, text=True, env=cli_env(), timeout=60,
    )  # fmt: skip
    assert keyring.stdout.strip() == SECRET
    deleted = cli("agents", "secret", "locked", "AUTH_AGENT_KEY", "--delete")
    assert deleted.returncode == 0 and json.loads(paths.secret_names_file().read_text())["agents"] == {}


@pytest.mark.parametrize("protocol", [1, 2])
def test_needed_at_prompt_time_one_notice_then_an_agent_method_sends_the_queue(
    daemons: list[DaemonProcess], tmp_path: Path, protocol: int
) -> None:
    write_config(tmp_path, "claudeish", protocol, "prompt")
    daemon = DaemonProcess("run", "--headless", env=cli_env())
    daemons.append(daemon)
    daemon.wait_for_line("claudeish  connected")
    for n in range(3):
        assert cli("prompt", "--no-wait", "claudeish", f"queued {n}").returncode == 0
    daemon.wait_for_line("claudeish  SIGN-IN")
    until(lambda: any(r["title"] == "Sign in to claudeish" for r in history()), what="the sign-in notice")
    assert agent_row("claudeish")["state"] == "needs sign-in"
    waited = cli("prompt", "claudeish", "not queued: someone waits on it")
    assert waited.returncode == 1 and "claudeish needs you to sign in: `acp-tray login claudeish`" in waited.stderr
    signed = cli("login", "claudeish", "token")
    assert signed.returncode == 0, signed.stderr
    assert signed.stdout.strip().startswith("claudeish: signed in with Use a token · connected")
    until(lambda: sum(r["title"] == "Finished" for r in history()) == 3, what="the three queued prompts")
    titles = [r["title"] for r in history()]
    assert titles.count("Sign in to claudeish") == 1 and "Prompt failed" not in titles
    assert daemon.stop() == 0
