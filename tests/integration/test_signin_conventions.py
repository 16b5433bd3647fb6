"""Sign-in as agents in the wild do it, with the daemon, the `acp-tray` command line and the stdlib
auth agent (tests/agents/auth_agent.py, AUTH_AGENT_EXTRA): an OAuth flow that waits for a browser
(said while waited for; Ctrl+C cancels it in the agent, or restarts an agent stuck in it, and a
retry works), an `authenticate` the agent accepts and still refuses after, a numbered choice among
several methods on a terminal, terminal methods declared the older ways, a refusal's `data`, and an
agent that offers no method."""

from __future__ import annotations

import contextlib
import json
import os
import pty
import select
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path
from queue import Empty, Queue

import pytest

from acp_tray.files import paths
from tests.support.agents import AUTH_AGENT
from tests.support.config import history, write_agent_config
from tests.support.daemons import DaemonProcess, cli, cli_env
from tests.support.repo import ROOT
from tests.support.signin import received
from tests.support.waiting import until


def write_config(tmp_path: Path, protocol: int = 1, **env: str) -> Path:
    agent_env = {
        "AUTH_AGENT_PROTOCOL": str(protocol),
        "AUTH_AGENT_AT": "new",
        "AUTH_AGENT_TOKEN": str(tmp_path / "token"),
        "AUTH_AGENT_LOG": str(tmp_path / "agent.jsonl"),
        **env,
    }
    command = [sys.executable, str(AUTH_AGENT)]
    return write_agent_config("locked", command, tmp_path, agent_env, extra=f"protocol = {protocol}\n")


def needing_sign_in(daemons: list[DaemonProcess]) -> DaemonProcess:
    daemon = DaemonProcess("run", "--headless", env=cli_env())
    daemons.append(daemon)
    daemon.wait_for_line("locked  SIGN-IN")
    return daemon


def agent_row() -> dict[str, object]:
    rows = json.loads(cli("agents", "list", "--json").stdout)
    row: dict[str, object] = next(r for r in rows if r["name"] == "locked")
    return row


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def sent(tmp_path: Path, method: str) -> list[dict[str, object]]:
    return [m for m in received(tmp_path) if m.get("method") == method]


def rest(lines: Queue[str]) -> list[str]:
    """The lines the daemon printed that no wait read."""
    found = []
    with contextlib.suppress(Empty):
        while True:
            found.append(lines.get_nowait())
    return found


def browser_finishes(port: int) -> None:
    """What the person's browser does at the end of an OAuth flow: it reaches the callback server."""
    with socket.create_connection(("127.0.0.1", port), timeout=10):
        pass


@pytest.mark.parametrize(("protocol", "stuck"), [(1, False), (1, True), (2, False)])
def test_an_oauth_sign_in_is_waited_for_then_ctrl_c_cancels_it_and_a_retry_works(
    daemons: list[DaemonProcess], tmp_path: Path, protocol: int, stuck: bool
) -> None:
    port = free_port()
    env = {"AUTH_AGENT_EXTRA": "oauth", "AUTH_AGENT_OAUTH_PORT": str(port), "AUTH_AGENT_STUCK": "1" if stuck else "0"}
    write_config(tmp_path, protocol, **env)
    daemon = needing_sign_in(daemons)

    login = DaemonProcess("login", "locked", "oauth", env=cli_env())  # the command, read line by line
    daemons.append(login)
    waiting = login.wait_for_line("finish signing in there", timeout=20)
    assert "waiting for locked to finish signing in with Sign in with a browser" in waiting
    assert "Ctrl+C stops waiting" in waiting
    login.proc.send_signal(signal.SIGINT)
    assert login.proc.wait(timeout=30) == 130
    said = login.stderr_text()
    assert "Traceback" not in said
    if stuck:
        assert "locked did not end it when asked, so acp-tray restarted locked" in said, said
    else:
        assert "locked cancelled it" in said, said
    logins = sent(tmp_path, "auth/login" if protocol == 2 else "authenticate")
    cancels = sent(tmp_path, "$/cancel_request")
    assert cancels and cancels[0]["params"] == {"requestId": logins[0]["id"]}

    if stuck:
        daemon.wait_for_line("locked  SIGN-IN")  # the restarted agent
    assert agent_row()["state"] == "needs sign-in"
    retry = DaemonProcess("login", "locked", "oauth", env=cli_env())
    daemons.append(retry)
    retry.wait_for_line("finish signing in there", timeout=20)  # not "Port N is already in use"
    browser_finishes(port)
    assert retry.proc.wait(timeout=30) == 0, retry.stderr_text()
    retry.wait_for_line("locked: signed in with Sign in with a browser · connected")


def test_a_sign_in_the_agent_accepts_but_still_refuses_after_is_said_at_once(
    daemons: list[DaemonProcess], tmp_path: Path
) -> None:
    write_config(tmp_path, AUTH_AGENT_EXTRA="hollow")
    needing_sign_in(daemons)
    started = time.monotonic()
    login = cli("login", "locked", "hollow", timeout=25)  # not after a 30 s wait for "connected"
    assert login.returncode == 1, login.stdout
    said = "locked: the sign-in with Method hollow did not take: it still refuses: Authentication required (code"
    assert said in login.stderr
    assert "Traceback" not in login.stderr
    assert time.monotonic() - started < 25


def test_several_methods_on_a_terminal_are_offered_as_a_numbered_choice(
    daemons: list[DaemonProcess], tmp_path: Path
) -> None:
    write_config(tmp_path)
    needing_sign_in(daemons)
    main, secondary = pty.openpty()
    proc = subprocess.Popen(
        [sys.executable, "-m", "acp_tray", "login", "locked"],
        stdin=secondary, stdout=secondary, stderr=secondary, env=cli_env(), cwd=ROOT,
    )  # fmt: skip
    os.close(secondary)
    try:
        screen = read_until(main, "Sign in with which one? [1-4]")
        assert "locked offers 4 ways to sign in:" in screen
        assert "1. Use a token (token): writes a token file" in screen
        assert f"3. Sign in in a terminal (tui): runs {sys.executable} {AUTH_AGENT} --login" in screen
        os.write(main, b"1\n")
        screen = read_until(main, "locked: signed in with Use a token · connected")
        assert proc.wait(timeout=30) == 0
    finally:
        proc.kill()
        proc.wait()
        os.close(main)


def read_until(fd: int, needle: str, timeout: float = 30.0) -> str:
    """What a terminal showed, until `needle`."""
    seen = b""
    deadline = time.monotonic() + timeout
    while needle.encode() not in seen.replace(b"\r\n", b"\n"):
        ready, _, _ = select.select([fd], [], [], max(0.0, deadline - time.monotonic()))
        if not ready:
            raise AssertionError(f"no {needle!r} on the terminal; it showed {seen.decode(errors='replace')!r}")
        try:
            seen += os.read(fd, 4096)
        except OSError:  # the program ended: its terminal is gone
            raise AssertionError(f"no {needle!r}; the terminal showed {seen.decode(errors='replace')!r}") from None
    return seen.replace(b"\r\n", b"\n").decode(errors="replace")


@pytest.mark.parametrize("method", ["legacy-tui", "meta-tui"])
def test_terminal_methods_declared_the_older_ways_run_their_command(
    daemons: list[DaemonProcess], tmp_path: Path, method: str
) -> None:
    write_config(tmp_path, AUTH_AGENT_EXTRA="legacy-tui,meta-tui", AUTH_AGENT_OFFER="legacy-tui,meta-tui")
    needing_sign_in(daemons)
    command = [sys.executable, str(AUTH_AGENT), "--login"]
    methods = {m["id"]: m for m in agent_row()["sign_in_methods"]}  # type: ignore[attr-defined]
    assert methods[method]["kind"] == "terminal" and methods[method]["command"] == command
    shown = " ".join(command)
    notice = until(lambda: next((r for r in history() if r["title"] == "Sign in to locked"), None), what="the notice")
    assert f"runs `{shown}`" in notice["description"]

    login = cli("login", "locked", method)
    assert login.returncode == 0, login.stderr
    lines = login.stdout.splitlines()
    assert lines[0].startswith(f"Signing in to locked with {methods[method]['name']}: {shown}")  # before it runs
    assert "auth-agent: signed in" in login.stdout and "locked: signed in · connected" in login.stdout
    assert not sent(tmp_path, "authenticate")  # never sent to the agent


@pytest.mark.parametrize(
    ("data", "meant"),
    [
        ({"authMethods": [{"id": "openai", "name": "Use OpenAI", "description": "an API key"}]},
         "it offers one way to sign in: Use OpenAI"),
        ({"trace": {"request": "x-internal-7"}}, None),
    ],
)  # fmt: skip
def test_a_refusals_data_is_said_in_words_or_not_at_all(
    daemons: list[DaemonProcess], tmp_path: Path, data: dict[str, object], meant: str | None
) -> None:
    write_config(tmp_path, AUTH_AGENT_REFUSAL_DATA=json.dumps(data))
    daemon = needing_sign_in(daemons)
    notice = until(lambda: next((r for r in history() if r["title"] == "Sign in to locked"), None), what="the notice")
    read = {
        "agents list": str(agent_row()["detail"]),
        "status": cli("status").stdout,
        "agents list (text)": cli("agents", "list").stdout,
        "notice": str(notice["description"]),
    }
    daemon.stop()
    read["log"] = "\n".join([*daemon.seen, *rest(daemon.lines), daemon.stderr_text()])
    if paths.log_file().exists():
        read["log file"] = paths.log_file().read_text(encoding="utf-8")
    for where, text in read.items():
        assert '{"' not in text and "x-internal-7" not in text, (where, text)
        assert "Authentication required" in text or where == "log", (where, text)
    if meant is not None:
        assert meant in read["agents list"] and meant in read["notice"]


def test_an_agent_offering_no_method_is_signed_in_its_own_way_then_restarted(
    daemons: list[DaemonProcess], tmp_path: Path
) -> None:
    words = "Not signed in: run `auggie login` first"
    write_config(tmp_path, AUTH_AGENT_OFFER="", AUTH_AGENT_REFUSAL=words)
    needing_sign_in(daemons)
    detail = str(agent_row()["detail"])
    assert words in detail and "sign in the agent's own way" in detail, detail
    assert "`acp-tray agents restart locked`" in detail and "acp-tray login" not in detail
    notice = until(lambda: next((r for r in history() if r["title"] == "Sign in to locked"), None), what="the notice")
    assert (
        "Sign in locked's own way, as it says below, then run `acp-tray agents restart locked`."
        in notice["description"]
    )
    assert words in notice["description"] and "METHOD" not in notice["description"]
    login = cli("login", "locked")
    assert login.returncode == 1
    assert f"It said: {words} (code -32000). Sign in the agent's own way" in login.stderr, login.stderr
    assert "`acp-tray agents restart locked`" in login.stderr

    (tmp_path / "token").write_text("signed in the agent's own way\n")
    assert cli("agents", "restart", "locked").returncode == 0
    until(lambda: agent_row()["state"] == "connected", what="the restarted agent signed in")
