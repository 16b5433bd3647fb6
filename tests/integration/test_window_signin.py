"""Sign-in from the window in a real browser (Debian's chromium through Playwright), against a real
daemon and the sign-in test agent (tests/agents/auth_agent.py) as real subprocesses: its methods
as buttons, an agent method done (and one refused, in the agent's words), a terminal method run by
$TERMINAL (a test terminal that runs the command) and reported back, and an env_var secret typed
into the page that reaches the real GNOME Keyring and the agent, and nothing else."""

from __future__ import annotations

import html
import json
import os
import socket
import subprocess
import sys
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

import pytest

from acp_tray.files import paths
from acp_tray.prefs.names import shell_line
from tests.support.agents import AUTH_AGENT, agent_table, auth_agent_table
from tests.support.browser import PageFor, Screenshot
from tests.support.daemons import DaemonProcess, agent_state, cli, cli_env
from tests.support.repo import ROOT
from tests.support.waiting import until
from tests.support.window import window_process

FAKE_TERMINAL = ROOT / "tests" / "desktop" / "fake-terminal.sh"
LIVE = 1000  # ms: a change shows in an open page within a second, without reload
SECRET = "sk-window-Qv7-not-a-real-key"
HOSTILE_ID = '"><script>window.__pwned=1</script>'


def start_daemon(daemons: list[DaemonProcess], tables: str) -> DaemonProcess:
    config = paths.config_file()
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text('notifier = "console"\n' + tables, encoding="utf-8")
    daemon = DaemonProcess("run", "--headless", env=cli_env())
    daemons.append(daemon)
    daemon.wait_for_line("control: ")
    return daemon


def agent(page: Any, name: str, state: str = "needs sign-in") -> Any:
    found = page.locator(f'[data-agent="{name}"][data-state="{state}"]')
    found.wait_for(timeout=30_000)
    return found


def test_agent_and_terminal_methods_from_the_page_open_the_session(
    daemons: list[DaemonProcess],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    page_for: PageFor,
    screenshot: Screenshot,
) -> None:
    terminal = tmp_path / "terminal"
    terminal.mkdir()
    monkeypatch.setenv("TERMINAL", str(FAKE_TERMINAL))  # the window's server inherits it
    monkeypatch.setenv("ACP_TRAY_TEST_TERMINAL", str(terminal))
    locked = {
        "AUTH_AGENT_AT": "new",
        "AUTH_AGENT_TOKEN": str(tmp_path / "locked" / "token"),
        "AUTH_AGENT_ID_SUFFIX": HOSTILE_ID,  # agent-supplied ids travel through the page as inert text
    }
    (tmp_path / "locked").mkdir()
    start_daemon(
        daemons,
        agent_table("locked", [sys.executable, str(AUTH_AGENT)], locked, cwd=str(tmp_path / "locked"))
        + auth_agent_table("tui", tmp_path / "tui"),
    )
    with window_process("agents") as window:
        for scheme in ("light", "dark"):
            shown = page_for(scheme)
            shown.page.goto(window.url)
            agent(shown.page, "locked")
            agent(shown.page, "tui")
            screenshot(shown, f"agents-needs-sign-in-{scheme}")
            shown.page.goto(f"http://127.0.0.1:{window.port}/overview")
            agent(shown.page, "locked")
            screenshot(shown, f"overview-needs-sign-in-{scheme}")
            assert not shown.problems, shown.problems
        watched = page_for("light", viewport={"width": 390, "height": 900})  # a phone's width
        page = watched.page
        page.goto(window.url)
        row = agent(page, "locked")
        page.evaluate("() => { window.__notReloaded = true }")
        assert row.get_by_role("group", name="Sign in to locked").is_visible()
        buttons = row.get_by_role("group", name="Sign in to locked").get_by_role("button").all_inner_texts()
        assert buttons == [
            "Use a token",
            "Always refused",
            "Sign in in a terminal · opens a terminal",
            "Broken terminal sign-in · opens a terminal",
            "Keep in the keyring and sign in",
        ]
        key = row.get_by_label("AUTH_AGENT_KEY")
        assert key.get_attribute("type") == "password" and key.get_attribute("autocomplete") == "off"
        assert "Company SSO (ask IT): acp-tray cannot do this kind of sign-in (_acme.sso)" in row.inner_text()
        runs = shell_line([sys.executable, str(AUTH_AGENT), "--login", HOSTILE_ID])  # the exact command, inert
        assert "--login" not in row.inner_text()  # the command is behind the sign-in's Details
        row.locator(".signin summary").click()
        assert f"Sign in in a terminal runs: {runs}" in row.inner_text()
        screenshot(watched, "agents-needs-sign-in-narrow")

        # an agent method the agent refuses: its own words, and it still needs the sign-in
        row.get_by_role("button", name="Always refused").click()
        toast = page.locator("#toast .toast.problem")
        toast.wait_for(timeout=10_000)
        assert "locked refused the sign-in with Always refused: the token service said no" in toast.inner_text()
        assert page.locator('[data-agent="locked"]').get_attribute("data-state") == "needs sign-in"
        screenshot(watched, "agents-sign-in-refused-narrow")

        key.fill("typed, not sent")  # kept while the agents' part is drawn again below

        # a terminal method: $TERMINAL runs `acp-tray login tui tui --pause`, which runs the agent's
        # own command with the method's args and reports back with login.finished
        tui = agent(page, "tui")
        tui.get_by_role("button", name="Sign in in a terminal").click()
        page.get_by_text("tui: a terminal window opened to sign in with Sign in in a terminal").wait_for()
        agent(page, "tui", "connected")
        called = (terminal / "called").read_text().splitlines()
        assert called[0] == "-e" and called[-4:] == ["login", "tui", "tui", "--pause"]
        until(lambda: "Press Enter" in (terminal / "output").read_text(), what="the terminal's command to end")
        output = (terminal / "output").read_text()
        assert "auth-agent: signed in" in output and "tui: signed in · connected" in output
        assert row.get_by_label("AUTH_AGENT_KEY").input_value() == "typed, not sent"

        # an agent method: the daemon signs in through the agent; the session opens, live
        row.get_by_role("button", name="Use a token").click()
        agent(page, "locked", "connected")
        page.get_by_text("locked: signed in with Use a token · Connected.").wait_for(timeout=LIVE)
        assert (tmp_path / "locked" / "token").exists()
        assert page.evaluate("() => window.__notReloaded") is True  # live, not a reload
        assert page.evaluate("() => window.__pwned") is None
        assert not watched.problems, watched.problems

    for name in ("locked", "tui"):  # both sessions are open: a prompt is answered
        reply = cli("prompt", name, "hello")
        assert reply.returncode == 0 and reply.stdout.strip() == "hello", reply.stderr


def test_an_env_var_secret_typed_in_the_page_reaches_the_keyring_and_nothing_else(
    daemons: list[DaemonProcess],
    tmp_path: Path,
    keyring_env: dict[str, str],
    monkeypatch: pytest.MonkeyPatch,
    page_for: PageFor,
) -> None:
    for key, value in keyring_env.items():
        monkeypatch.setenv(key, value)  # the daemon, the window's server and the CLI use this keyring
    daemon = start_daemon(daemons, auth_agent_table("locked", tmp_path / "locked"))
    with window_process("agents") as window:
        watched = page_for("light")
        page = watched.page
        responses: list[Any] = []
        page.on("response", lambda response: responses.append(response))
        page.goto(window.url)
        row = agent(page, "locked")
        row.get_by_label("AUTH_AGENT_KEY").fill(SECRET)
        row.get_by_role("button", name="Keep in the keyring and sign in").click()
        agent(page, "locked", "connected")
        done = "locked: AUTH_AGENT_KEY kept in the OS keyring; signed in with API key · Connected."
        page.get_by_text(done).wait_for(timeout=30_000)
        assert SECRET not in page.content()
        for path in ("/agents", "/overview", "/history"):
            assert SECRET not in window.request("GET", path).body
        read = [r for r in responses if r.status < 300 and "event-stream" not in r.headers.get("content-type", "")]
        bodies = [r.text() for r in read]  # the pages, their files, every POST's answer
        assert len(bodies) >= 4 and not any(SECRET in body for body in bodies)
        assert not watched.problems, watched.problems
        reply = cli("prompt", "locked", "env AUTH_AGENT_KEY")  # the agent was given it from the keyring
        assert reply.returncode == 0 and reply.stdout.strip() == SECRET
        for pid in filter(str.isdigit, os.listdir("/proc")):  # in no process's arguments
            try:
                assert SECRET.encode() not in Path(f"/proc/{pid}/cmdline").read_bytes()
            except OSError:
                continue

    keyring = subprocess.run(
        [sys.executable, "-c", "import keyring; print(keyring.get_password('acp-tray', 'locked/AUTH_AGENT_KEY'))"],
        capture_output=True, text=True, env=cli_env(), timeout=60,
    )  # fmt: skip
    assert keyring.stdout.strip() == SECRET
    assert json.loads(paths.secret_names_file().read_text())["agents"] == {"locked": ["AUTH_AGENT_KEY"]}
    assert daemon.stop() == 0
    assert SECRET not in daemon.stderr_text() and SECRET not in "\n".join(daemon.seen)
    for where in (paths.config_file(), paths.log_file().parent, paths.state_dir()):
        files = [where] if where.is_file() else [p for p in where.rglob("*") if p.is_file()]
        assert files
        for file in files:
            assert SECRET not in file.read_text(errors="replace"), file
    assert paths.log_file().with_name("window.log") in list(paths.log_file().parent.iterdir())


def test_what_cannot_be_done_is_said_in_plain_words(
    daemons: list[DaemonProcess], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    start_daemon(daemons, auth_agent_table("locked", tmp_path / "locked"))
    until(lambda: agent_state("locked", cli_env()) == "needs sign-in", 30, "locked to need a sign-in")
    monkeypatch.delenv("TERMINAL", raising=False)  # the window's server: no terminal to be found
    monkeypatch.setenv("PATH", str(tmp_path / "no-terminals-here"))
    with window_process("agents") as window:

        def said(name: str, **form: str) -> str:
            answer = window.request("POST", f"/sign-in/{name}", body=urlencode(form).encode())
            assert answer.status == 200 and 'class="toast problem"' in answer.body, answer.body
            return html.unescape(answer.body)

        assert "locked does not offer that sign-in now." in said("locked", method="nope")
        assert "There is no agent 'ghost' any more." in said("ghost", method="token")
        assert "Company SSO (ask IT): acp-tray cannot do this kind of sign-in (_acme.sso)" in said(
            "locked", method="sso"
        )
        assert "nothing entered for AUTH_AGENT_KEY; nothing stored" in said("locked", method="key")
        no_terminal = said("locked", method="tui")
        assert ">no terminal emulator found: set $TERMINAL (e.g. TERMINAL=xterm) or install one</p>" in no_terminal
        assert "<summary>Details</summary><ul><li>In a terminal: acp-tray login locked tui</li>" in no_terminal
    assert not paths.secret_names_file().exists()
    assert agent_state("locked", cli_env()) == "needs sign-in"


def oauth_agent(daemons: list[DaemonProcess], tmp_path: Path) -> tuple[int, Path]:
    """A daemon with `locked`: an agent whose browser sign-in stays open until it is cancelled (its
    callback port, and the log of what it was sent, returned)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    log = tmp_path / "agent.jsonl"
    env = {
        "AUTH_AGENT_AT": "new",
        "AUTH_AGENT_TOKEN": str(tmp_path / "token"),
        "AUTH_AGENT_LOG": str(log),
        "AUTH_AGENT_EXTRA": "oauth",
        "AUTH_AGENT_OFFER": "oauth",
        "AUTH_AGENT_OAUTH_PORT": str(port),
    }
    start_daemon(daemons, agent_table("locked", [sys.executable, str(AUTH_AGENT)], env, cwd=str(tmp_path)))
    return port, log


SEEN_STREAM = """() => { window.streamed = [];
  document.addEventListener("htmx:sseMessage", (event) => window.streamed.push(event.detail.type)); }"""


def test_a_sign_in_clicked_as_the_page_loads_keeps_saying_it_signs_in(
    daemons: list[DaemonProcess], tmp_path: Path, page_for: PageFor
) -> None:
    """The page's live stream does not draw again, as it opens, what the page was just drawn with:
    the agent's card a person clicks the moment the page shows stays (and its "Signing in…" while
    the agent's sign-in runs); only what changed since is drawn again."""
    oauth_agent(daemons, tmp_path)
    until(lambda: agent_state("locked", cli_env()) == "needs sign-in", what="locked waiting for a sign-in")
    with window_process("agents") as window:
        page = page_for("light").page
        page.add_init_script(f"({SEEN_STREAM})()")
        page.goto(window.url)
        card = agent(page, "locked")
        card.evaluate("element => { element.dataset.drawnAtLoad = 'yes'; }")
        card.get_by_role("button", name="Sign in with a browser").click()
        until(lambda: "daemon" in page.evaluate("window.streamed"), what="the page's stream open")
        page.wait_for_timeout(1500)  # what the stream sends as it opens has come by then
        assert "agents" not in page.evaluate("window.streamed")  # nothing changed since the page was drawn
        assert page.locator('[data-agent="locked"][data-drawn-at-load="yes"]').count() == 1
        assert page.get_by_text("Signing in…").is_visible()


def test_a_page_closed_while_the_agent_signs_in_cancels_it_in_the_agent(
    daemons: list[DaemonProcess], tmp_path: Path, page_for: PageFor
) -> None:
    port, log = oauth_agent(daemons, tmp_path)

    def sent(method: str) -> list[dict[str, Any]]:
        lines = log.read_text().splitlines() if log.exists() else []
        return [m for m in map(json.loads, lines) if m.get("method") == method]

    with window_process("agents") as window:
        page = page_for("light").page
        page.goto(window.url)
        agent(page, "locked").get_by_role("button", name="Sign in with a browser").click()
        page.get_by_text("Signing in…").wait_for()
        until(lambda: sent("authenticate"), what="the agent asked to sign in")
        page.close()  # the person gave up: the agent's OAuth flow is cancelled, its port freed
        cancel = until(lambda: sent("$/cancel_request"), what="the sign-in cancelled in the agent")
        assert cancel[0]["params"] == {"requestId": sent("authenticate")[0]["id"]}
    until(lambda: port_free(port), what="the agent's callback port freed")
    assert agent_state("locked", cli_env()) == "needs sign-in"


def port_free(port: int) -> bool:
    with socket.socket() as probe:
        try:
            probe.bind(("127.0.0.1", port))
        except OSError:
            return False
        return True
