"""Sign-in with the real, pinned third-party agents (tests/real_agents: installed outside the repo by
`.ci/real-agents`). There is no network but the package registries here, so a signed-in agent's
prompt fails with its own network error, and that error must reach the person clearly."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from acp_tray.files import paths
from tests.real_agents import npm_package_bin, root
from tests.support.config import history, write_agent_config
from tests.support.daemons import DaemonProcess, cli, cli_env
from tests.support.waiting import until

FAKE_KEY = "sk-fake-acp-tray-tests-0000000000000000"
REAL_AGENTS = str(root())  # found at import, before each test's isolated XDG dirs hide the cache


@pytest.fixture(autouse=True)
def real_agents_where_installed(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ACP_TRAY_REAL_AGENTS", REAL_AGENTS)


def started(daemons: list[DaemonProcess]) -> DaemonProcess:
    """The daemon in its own process group: codex-acp's and the Claude adapter's launchers start
    child processes that outlive a stopped launcher until acp-tray ends process trees (issue 13),
    so the test ends the whole group itself."""
    daemon = DaemonProcess("run", "--headless", env=cli_env(), own_group=True)
    daemons.append(daemon)
    return daemon


def stop_all(daemon: DaemonProcess) -> None:
    daemon.stop()
    with contextlib.suppress(ProcessLookupError):
        os.killpg(daemon.proc.pid, signal.SIGKILL)


def write_config(name: str, command: list[str], cwd: Path, env: dict[str, str]) -> None:
    write_agent_config(name, command, cwd, env, extra="protocol = 1\n")


def test_codex_acp_signs_in_with_openai_api_key_from_the_keyring_then_its_network_error_is_shown(
    daemons: list[DaemonProcess],
    tmp_path: Path,
    keyring_env: dict[str, str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    for key, value in keyring_env.items():
        monkeypatch.setenv(key, value)
    codex_home = tmp_path / "codex-home"  # its own, empty: no sign-in from elsewhere
    codex_home.mkdir()
    write_config("codex", npm_package_bin("@zed-industries/codex-acp"), tmp_path, {"CODEX_HOME": str(codex_home)})
    stored = subprocess.run(
        [sys.executable, "-m", "acp_tray", "agents", "secret", "codex", "OPENAI_API_KEY"],
        input=FAKE_KEY + "\n", capture_output=True, text=True, env=cli_env(), timeout=60,
    )  # fmt: skip
    assert stored.returncode == 0, stored.stderr
    daemon = started(daemons)
    daemon.wait_for_line("codex  SIGN-IN", timeout=60)
    row = json.loads(cli("agents", "list", "--json").stdout)[0]
    assert row["state"] == "needs sign-in"
    methods = {m["id"]: m["kind"] for m in row["sign_in_methods"]}
    assert methods == {"chatgpt": "agent", "codex-api-key": "env_var", "openai-api-key": "env_var"}

    signed = cli("login", "codex", "openai-api-key", timeout=120)
    assert signed.returncode == 0, signed.stderr
    assert signed.stdout.startswith("codex: signed in with Use OPENAI_API_KEY · connected (session ")
    assert json.loads(cli("agents", "list", "--json").stdout)[0]["state"] == "connected"

    prompt = cli("prompt", "codex", "say hello", timeout=240)
    assert prompt.returncode == 1
    assert "acp-tray: the prompt failed: " in prompt.stderr
    assert "https://api.openai.com" in prompt.stderr and "(code -32603)" in prompt.stderr  # its own error
    until(lambda: any(r["title"] == "Prompt failed" for r in history()), what="the failure notice")
    failed = next(r for r in history() if r["title"] == "Prompt failed")
    assert "api.openai.com" in str(failed["description"])
    titles = [r["title"] for r in history()]
    assert titles.count("Sign in to codex") == 1
    stop_all(daemon)
    for file in [p for p in paths.state_dir().rglob("*") if p.is_file()] + [paths.config_file()]:
        assert FAKE_KEY not in file.read_text(errors="replace"), file
    assert FAKE_KEY not in daemon.stderr_text() and FAKE_KEY not in "\n".join(daemon.seen)


def test_a_claude_adapter_needing_sign_in_at_prompt_time_gives_one_notice(
    daemons: list[DaemonProcess], tmp_path: Path
) -> None:
    home = tmp_path / "home"  # no credentials of anyone's
    home.mkdir()
    env = {"HOME": str(home), "IS_SANDBOX": "1"} if os.geteuid() == 0 else {"HOME": str(home)}
    write_config("claude", npm_package_bin("@zed-industries/claude-agent-acp", "claude-agent-acp"), tmp_path, env)
    daemon = started(daemons)
    daemon.wait_for_line("claude  connected", timeout=60)
    waited = cli("prompt", "claude", "hello", timeout=180)
    assert waited.returncode == 1
    assert "claude needs you to sign in: `acp-tray login claude`" in waited.stderr
    for n in range(2):  # more prompts, queued: no notice each, they wait for the sign-in
        assert cli("prompt", "--no-wait", "claude", f"queued {n}").returncode == 0
    row = json.loads(cli("agents", "list", "--json").stdout)[0]
    assert row["state"] == "needs sign-in"
    assert [(m["id"], m["kind"]) for m in row["sign_in_methods"]] == [("claude-login", "terminal")]
    assert row["queued"] == 2
    until(lambda: any(r["title"] == "Sign in to claude" for r in history()), what="the sign-in notice")
    notice = next(r for r in history() if r["title"] == "Sign in to claude")
    lead, command = str(notice["description"]).split("\n")[:2]  # its button's words, then the command
    assert lead.startswith("Choose “") and lead.endswith("” to sign in.")
    assert command == "Or run `acp-tray login claude claude-login`."
    titles = [r["title"] for r in history()]
    assert titles.count("Sign in to claude") == 1 and "Prompt failed" not in titles
    stop_all(daemon)
