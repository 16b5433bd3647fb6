"""A sign-in address the agent writes reaches the person: while its own sign-in waits, the lines it
writes on stderr, or on stdout instead of JSON-RPC, that carry an https address (or http on this
machine) are shown by `acp-tray login`, in a notice and in the window (a link, opened only on a
click); the code such a sign-in reads on its input (gemini's user-code login) is asked for and
typed there as one line, and kept out of the log. Real daemon, the stdlib auth agent's `url-code`
method (tests/agents/auth_agent.py), the real CLI, and the real window in chromium."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from acp_tray.files import paths
from tests.agents.auth_agent import SIGN_IN_PAGE, URL_CODE
from tests.support.agents import AUTH_AGENT
from tests.support.browser import PageFor
from tests.support.config import history, write_agent_config
from tests.support.daemons import DaemonProcess, cli_env
from tests.support.waiting import until
from tests.support.window import window_process

LOOPBACK_PAGE = "http://127.0.0.1:8085/oauth2callback?ready=1"
LIVE = 15_000  # ms


def _hosted(tmp_path: Path, daemons: list[DaemonProcess]) -> DaemonProcess:
    env = {
        "AUTH_AGENT_AT": "new",
        "AUTH_AGENT_TOKEN": str(tmp_path / "token"),
        "AUTH_AGENT_EXTRA": "url-code",
        "AUTH_AGENT_OFFER": "url-code",
    }
    write_agent_config("locked", [sys.executable, str(AUTH_AGENT)], tmp_path, env)
    daemon = DaemonProcess("run", "--headless", env=cli_env())
    daemons.append(daemon)
    daemon.wait_for_line("locked  SIGN-IN")
    return daemon


def _login(code: str) -> subprocess.CompletedProcess[str]:
    """`acp-tray login locked url-code`, the code given on its input when it asks."""
    return subprocess.run(
        [sys.executable, "-m", "acp_tray", "login", "locked", "url-code"],
        input=code + "\n", capture_output=True, text=True, env=cli_env(), timeout=60,
    )  # fmt: skip


def test_login_shows_the_address_the_agent_wrote_and_types_the_code_it_asks_for(
    daemons: list[DaemonProcess], tmp_path: Path
) -> None:
    _hosted(tmp_path, daemons)
    wrong = _login("not-the-code")
    assert wrong.returncode == 1 and "Failed to authenticate with user code." in wrong.stderr, wrong
    signed = _login(URL_CODE)
    assert signed.returncode == 0, signed
    out = signed.stdout
    assert "locked asks you to open this page to sign in" in out
    assert f"\n{SIGN_IN_PAGE}\n" in out and f"\n{LOOPBACK_PAGE}\n" in out  # whole, each on a line of its own
    assert "evil.example.com" not in out and "javascript:" not in out  # plain http elsewhere: not offered
    assert "oauth2.example.com" not in wrong.stdout  # the address a failure names is no page to open
    assert wrong.stdout.count("Paste the code") == 1  # asked once: its stderr line is not its terminal
    assert "sent the code to locked" in out and "locked: signed in with" in out
    assert "Traceback" not in signed.stderr + wrong.stderr
    notices = [r for r in history() if r.get("title") == "Sign-in page"]
    assert notices and SIGN_IN_PAGE in notices[-1]["description"], notices  # the notice says where to go
    assert "enter the code it gives you" in notices[-1]["description"]
    log = paths.log_file().read_text(encoding="utf-8")
    assert URL_CODE not in log and "not-the-code" not in log  # the agent echoes it: masked, never logged


def test_the_window_shows_the_address_as_a_link_and_takes_the_code(
    daemons: list[DaemonProcess], tmp_path: Path, page_for: PageFor
) -> None:
    _hosted(tmp_path, daemons)
    with window_process("agents") as window:
        page = page_for("light").page
        page.goto(window.url)
        page.get_by_role("button", name="Method url-code").click()
        link = page.get_by_role("link", name=SIGN_IN_PAGE)
        link.wait_for(timeout=LIVE)
        assert link.get_attribute("href") == SIGN_IN_PAGE and link.get_attribute("target") == "_blank"
        assert page.get_by_role("link", name=LOOPBACK_PAGE).count() == 1
        assert page.locator('a[href*="evil.example.com"], a[href^="javascript:"]').count() == 0
        assert len(page.context.pages) == 1  # nothing opened until the person clicks
        page.get_by_label("Code from that page").fill(URL_CODE)
        page.get_by_role("button", name="Send the code to locked").click()
        until(lambda: (tmp_path / "token").exists(), timeout=30, what="the agent signed in with the code")
        page.locator('[data-agent="locked"][data-state="connected"]').wait_for(timeout=LIVE)
        assert page.get_by_role("link", name=SIGN_IN_PAGE).count() == 0  # no longer so: gone
