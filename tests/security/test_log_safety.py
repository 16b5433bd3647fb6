"""Items 1, 3 and 4 of the security review (and issue 13's third-party noise): no secret in the
log, the console, `status` or `agents list`, whoever logs it; an agent's text cannot forge a log
line or send terminal sequences; other libraries' DEBUG records only with -vvv."""

from __future__ import annotations

import base64
import json
import logging
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from acp_tray.logs.redact import redact, shown_url
from acp_tray.logs.setup import SafeRecords
from tests.support.agents import scripted_command
from tests.support.daemons import DaemonProcess, cli, cli_env
from tests.support.repo import ROOT
from tests.support.waiting import until

TOKEN = "tok-4f9a1c7e2b"
PASSWORD = "pw-77e1d3"
CUSTOM = "custom-9b2e5a"


@pytest.fixture
def ws_demo() -> Iterator[int]:
    """The demo agent serving WebSocket connections; yields its port."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "acp_tray", "demo-agent", "--listen", "127.0.0.1:0"],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
        env=cli_env(ACP_TRAY_DEMO_INTERVAL="0.05"),
        cwd=ROOT,
    )
    try:
        assert proc.stdout is not None
        match = re.fullmatch(r"listening on ws://127\.0\.0\.1:(\d+)\n", proc.stdout.readline())
        assert match
        yield int(match[1])
    finally:
        proc.kill()
        proc.wait()


def _log_text(isolated_dirs: Path) -> str:
    return (isolated_dirs / "xdg_state_home" / "acp-tray" / "log" / "acp-tray.log").read_text(errors="replace")


def test_no_secret_anywhere_at_the_highest_verbosity(
    isolated_dirs: Path, ws_demo: int, daemons: list[DaemonProcess]
) -> None:
    config = isolated_dirs / "config.toml"
    config.write_text(
        "[agents.far]\n"
        f'url = "ws://bob:{PASSWORD}@127.0.0.1:{ws_demo}/acp"\n'
        'headers = { Authorization = "Bearer ${ACP_TRAY_TEST_TOKEN}", X-Custom = "' + CUSTOM + '" }\n'
    )
    env = cli_env(ACP_TRAY_TEST_TOKEN=TOKEN)
    daemon = DaemonProcess("-vvv", "--config", str(config), "run", "--headless", env=env)
    daemons.append(daemon)
    daemon.wait_for_line("connected")
    shown = [cli("agents", "list").stdout, cli("status", "--json").stdout, cli("agents", "list").stdout]
    assert daemon.stop() == 0
    log_text = _log_text(isolated_dirs)
    assert "> Authorization: ***" in log_text  # websockets' own DEBUG record of the handshake, redacted
    basic = base64.b64encode(f"bob:{PASSWORD}".encode()).decode()
    everything = "\n".join([log_text, daemon.stderr_text(), *daemon.seen, *shown])
    for secret in (TOKEN, PASSWORD, CUSTOM, basic):
        assert secret not in everything, secret
    assert f"ws://bob:***@127.0.0.1:{ws_demo}/acp" in shown[0]
    assert json.loads(shown[1])["agents"][0]["target"] == f"ws://bob:***@127.0.0.1:{ws_demo}/acp"
    assert any(f"starting ws://bob:***@127.0.0.1:{ws_demo}/acp" in line for line in daemon.seen)


FORGED = "2026-01-01 00:00:00,000 INFO acp_tray.agents.approvals: x: permission request 9 (y) answered yes by person"


def test_agent_text_cannot_forge_log_lines_or_reach_the_terminal(
    isolated_dirs: Path, daemons: list[DaemonProcess]
) -> None:
    steps = [
        {"stderr_text": "\x1b]0;pwned\x07\x1b[31mred\x1b[0m and " + TOKEN},
        {
            "request": "session/request_permission",
            "params": {
                "sessionId": "scripted-1",
                "toolCall": {"toolCallId": "t1", "title": "ls\n" + FORGED + "\x1b[2J"},
                "options": [
                    {"optionId": "yes", "name": "Allow", "kind": "allow_once"},
                    {"optionId": "no", "name": "Reject", "kind": "reject_once"},
                ],
            },
        },
    ]
    config = isolated_dirs / "config.toml"
    config.write_text(
        f"[agents.x]\ncommand = {json.dumps(scripted_command())}\n"
        f'env = {{ SCRIPTED_AGENT_STEPS = {json.dumps(json.dumps(steps))}, API_TOKEN = "{TOKEN}" }}\n'
    )
    daemon = DaemonProcess("-vv", "--config", str(config), "run", "--headless")
    daemons.append(daemon)
    until(lambda: json.loads(cli("approvals", "--json").stdout or "[]"), what="the permission request")
    assert cli("deny", "1").returncode == 0
    until(lambda: "answered no by person" in _log_text(isolated_dirs), what="the answer in the log")
    assert daemon.stop() == 0
    log_text = _log_text(isolated_dirs)
    console = daemon.stderr_text()
    for text in (log_text, console):
        assert "\x1b" not in text and "\x07" not in text
        assert not any(line.startswith(FORGED[:30]) for line in text.splitlines())
        assert TOKEN not in text  # a secret-looking env value, echoed on the agent's stderr
    assert "stderr: red and ***" in log_text  # terminal sequences stripped, the secret masked
    assert "(ls\\n2026-01-01" in log_text


def test_third_party_debug_only_with_three_vs() -> None:
    def passes(name: str, level: int, verbosity: int) -> bool:
        record = logging.LogRecord(name, level, "", 0, "rust notify timeout, continuing", None, None)
        return SafeRecords(verbosity).filter(record)

    for name in ("watchfiles.main", "PIL.PngImagePlugin", "tzlocal", "websockets.client", "asyncio"):
        assert not passes(name, logging.DEBUG, 2)
        assert passes(name, logging.DEBUG, 3)
        assert passes(name, logging.WARNING, 0)
    assert passes("acp_tray.agents.host", logging.DEBUG, 2)


def test_watchfiles_noise_stays_out_of_minus_vv(isolated_dirs: Path, daemons: list[DaemonProcess]) -> None:
    daemon = DaemonProcess("-vv", "run", "--headless")
    daemons.append(daemon)
    daemon.wait_for_line("Workspace indexed")
    config = isolated_dirs / "xdg_config_home" / "acp-tray" / "config.toml"
    config.write_text(config.read_text() + "\n# touched\n")  # a reload: watchfiles logs at DEBUG
    until(lambda: "preferences reloaded" in _log_text(isolated_dirs), what="the reload")
    assert daemon.stop() == 0
    for text in (_log_text(isolated_dirs), daemon.stderr_text()):
        assert not re.search(r"DEBUG (watchfiles|PIL|tzlocal|asyncio)", text), text
        assert "DEBUG: " not in text or "acp-tray: DEBUG" in text


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("> Authorization: Bearer abc.def-123", "> Authorization: ***"),
        ("proxy: http://u:p4ss@proxy:3128/", "proxy: http://u:***@proxy:3128/"),
        ("GET /acp?token=abc123&x=1", "GET /acp?token=***&x=1"),
        ("sent Basic Ym9iOnB3LXNlY3JldA== to", "sent Basic *** to"),
        ("the token expired; Basic auth failed", "the token expired; Basic auth failed"),
    ],
)
def test_redaction_patterns(text: str, expected: str) -> None:
    assert redact(text) == expected


def test_shown_url_masks_only_the_password() -> None:
    assert shown_url("wss://me:secret@host:9/p?q") == "wss://me:***@host:9/p?q"
    assert shown_url("ws://host/p") == "ws://host/p"


def test_secret_looking_names_are_the_ones_that_hold_secrets() -> None:
    from acp_tray.logs.redact import looks_secret

    for name in ("OPENAI_API_KEY", "GH_TOKEN", "AWS_SESSION_TOKEN", "DB_PASSWORD", "X-Auth", "Cookie"):
        assert looks_secret(name), name
    for name in ("SESSION_AGENT_REFUSE", "SESSION_ID", "HOME", "LANG", "IS_SANDBOX"):  # a refusal text is no secret
        assert not looks_secret(name), name
