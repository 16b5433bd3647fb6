"""A real agent's terminal sign-in runs what its authors meant (the ACP Registry's AUTHENTICATION.md:
the method's args *replace* the agent's default args), checked on a real terminal (a pty) by what
the agent shows there, and the real opencode offers its `opencode auth login` once acp-tray says it
can run one (`clientCapabilities._meta["terminal-auth"]`).

The pinned agents (tests/real_agents) are added as the ACP Registry lists them, from a local
registry document: a binary entry whose program runs the pinned package's launcher, with the
registry's default args (qwen-code: `--acp --experimental-skills`, qodercli: `--acp`, the ACP
Claude adapter: none). No one's credentials (a HOME of their own), no browser, no network but the
package registries: each sign-in is seen to start, then stopped."""

from __future__ import annotations

import contextlib
import json
import os
import pty
import select
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from acp_tray.files import paths
from tests.real_agents import npm_bin, npm_package_bin, root
from tests.support.config import write_agent_config, write_config
from tests.support.daemons import DaemonProcess, cli, cli_env, start
from tests.support.registry_server import RegistryServer, binary_distribution, entry, script, tar_gz
from tests.support.repo import ROOT
from tests.support.waiting import until

REAL_AGENTS = str(root())  # found at import, before each test's isolated XDG dirs hide the cache
READY = 120  # s: for a real agent to start and ask for a sign-in
SHOWN = 90.0  # s: for its sign-in to show on the terminal

pytestmark = [pytest.mark.usefixtures("whole_groups"), pytest.mark.timeout(600)]


@pytest.fixture(autouse=True)
def real_agents_where_installed(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ACP_TRAY_REAL_AGENTS", REAL_AGENTS)


def agent_env(tmp_path: Path) -> dict[str, str]:
    """No one's credentials, no browser to open, and Claude Code's consent to run as root."""
    home = tmp_path / "home"
    home.mkdir(exist_ok=True)
    env = {"HOME": str(home), "BROWSER": "true"}
    return {**env, "IS_SANDBOX": "1"} if os.geteuid() == 0 else env


def added_from_registry(
    server: RegistryServer,
    daemons: list[DaemonProcess],
    tmp_path: Path,
    agent_id: str,
    launcher: list[str],
    args: list[str],
    state: str = "needs sign-in",
) -> Path:
    """`agents add ID` of a registry entry that runs `launcher` with the registry's `args`, until it
    is in `state` (the Claude adapter asks for a sign-in at the prompt: it connects); its program."""
    archive = f"/dl/{agent_id}.tar.gz"
    body = script("exec " + " ".join(f"'{word}'" for word in launcher) + ' "$@"')
    server.files[archive] = tar_gz({f"{agent_id}/bin/{agent_id}": body})
    distribution = binary_distribution(
        server, archive, f"./{agent_id}/bin/{agent_id}", args=args, env=agent_env(tmp_path)
    )
    write_config(registry=server.publish(entry(agent_id, "1.0.0", distribution)))
    start(daemons, own_group=True)
    added = cli("agents", "add", agent_id, timeout=READY + 60)
    assert added.returncode == 0, added.stderr
    until(lambda: row(agent_id)["state"] == state, timeout=READY, what=f"{agent_id} to be {state}")
    return paths.registry_agents_dir() / agent_id / "1.0.0" / agent_id / "bin" / agent_id


def row(name: str) -> dict[str, Any]:
    found: dict[str, Any] = next(r for r in json.loads(cli("agents", "list", "--json").stdout) if r["name"] == name)
    return found


def method_command(name: str, method: str) -> list[str]:
    methods = {m["id"]: m for m in row(name)["sign_in_methods"]}
    return list(methods[method]["command"])


def login_on_a_terminal(name: str, method: str, shows: str) -> str:
    """`acp-tray login NAME METHOD` on a pty (no display, no browser) until the terminal shows
    `shows`; then it is ended, with whatever it started. What the terminal showed."""
    main, secondary = pty.openpty()
    env = {k: v for k, v in cli_env().items() if k not in ("DISPLAY", "WAYLAND_DISPLAY")}
    proc = subprocess.Popen(
        [sys.executable, "-m", "acp_tray", "login", name, method],
        stdin=secondary, stdout=secondary, stderr=secondary, env={**env, "BROWSER": "true", "TERM": "xterm"},
        cwd=ROOT, start_new_session=True,
    )  # fmt: skip
    os.close(secondary)
    screen = b""
    deadline = time.monotonic() + SHOWN
    try:
        while shows.encode() not in screen and time.monotonic() < deadline:
            ready, _, _ = select.select([main], [], [], 0.5)
            with contextlib.suppress(OSError):
                screen += os.read(main, 65536) if ready else b""
            if proc.poll() is not None and not ready:
                break
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
        os.close(main)
    text = screen.decode("utf-8", "replace")
    assert shows in text, text[-2000:]
    return text


def test_qwen_code_added_from_the_registry_shows_its_own_login_on_a_terminal(
    server: RegistryServer, daemons: list[DaemonProcess], tmp_path: Path
) -> None:
    """Its method is `_meta: {type: terminal, args: ["--auth-type=openai"]}`: after the registry's
    `--acp --experimental-skills` it starts qwen's ACP server (a blank terminal); in their place,
    qwen's provider login."""
    program = added_from_registry(
        server, daemons, tmp_path, "qwen-code", npm_bin("qwen"), ["--acp", "--experimental-skills"]
    )
    assert method_command("qwen-code", "openai") == [str(program), "--auth-type=openai"]
    screen = login_on_a_terminal("qwen-code", "openai", "Connect a Provider")
    assert f"{program} --auth-type=openai" in screen  # what runs is what is shown


def test_qwen_code_configured_by_hand_shows_its_own_login_on_a_terminal(
    daemons: list[DaemonProcess], tmp_path: Path
) -> None:
    """The same method with qwen configured by hand as `qwen --acp --experimental-skills`: a method
    typed in `_meta` follows the registry's way, so its args replace the options after the program."""
    write_agent_config("qwen", [*npm_bin("qwen"), "--acp", "--experimental-skills"], tmp_path, agent_env(tmp_path))
    daemon = DaemonProcess("run", "--headless", env=cli_env(), own_group=True)
    daemons.append(daemon)
    daemon.wait_for_line("control: ")
    until(lambda: row("qwen")["state"] == "needs sign-in", timeout=READY, what="qwen to need a sign-in")
    assert method_command("qwen", "openai") == [*npm_bin("qwen"), "--auth-type=openai"]
    login_on_a_terminal("qwen", "openai", "Connect a Provider")


def test_qodercli_added_from_the_registry_shows_its_own_login_on_a_terminal(
    server: RegistryServer, daemons: list[DaemonProcess], tmp_path: Path
) -> None:
    """`type: terminal, args: ["login"]`: after the registry's `--acp` it is an ACP server again;
    in its place, `qodercli login` asks the person to open its sign-in page."""
    program = added_from_registry(server, daemons, tmp_path, "qoder", npm_bin("qodercli"), ["--acp"])
    assert method_command("qoder", "qodercli-login-terminal") == [str(program), "login"]
    login_on_a_terminal("qoder", "qodercli-login-terminal", "open the following URL in your browser to sign in")


def test_the_acp_claude_adapter_added_from_the_registry_shows_claudes_login_on_a_terminal(
    server: RegistryServer, daemons: list[DaemonProcess], tmp_path: Path
) -> None:
    """No default args in its registry entry: `claude-agent-acp --cli auth login --claudeai`, Claude
    Code's own sign-in, which gives the page to visit when no browser opens."""
    launcher = npm_package_bin("@agentclientprotocol/claude-agent-acp", "claude-agent-acp")
    program = added_from_registry(server, daemons, tmp_path, "claude-acp", launcher, [], "connected")
    assert method_command("claude-acp", "claude-ai-login") == [str(program), "--cli", "auth", "login", "--claudeai"]
    screen = login_on_a_terminal("claude-acp", "claude-ai-login", "Paste code here if prompted")
    assert "https://claude.com/cai/oauth/authorize" in screen  # the page to sign in on


def test_opencode_offers_its_terminal_login_command(daemons: list[DaemonProcess], tmp_path: Path) -> None:
    """opencode offers `opencode auth login` only to a client that says `_meta["terminal-auth"]`;
    without it, its method went to `authenticate`, which answered {} and signed nothing in."""
    write_agent_config("opencode", [*npm_bin("opencode"), "acp"], tmp_path, agent_env(tmp_path))
    daemon = DaemonProcess("run", "--headless", env=cli_env(), own_group=True)
    daemons.append(daemon)
    daemon.wait_for_line("control: ")
    until(lambda: row("opencode")["state"] == "connected", timeout=READY, what="opencode to connect")
    [method] = row("opencode")["sign_in_methods"]
    assert (method["id"], method["kind"]) == ("opencode-login", "terminal"), method
    assert method["command"][-2:] == ["auth", "login"], method
    assert Path(method["command"][0]).name == "opencode", method
