"""Sign-in from the desktop: the "Sign in to NAME" notification in a real dunst (private bus, Xvfb)
with a button per method, chosen from dunst's menu; a terminal method opens $TERMINAL running
`acp-tray login`; the tray's "Sign in" entry under the agent does the same through the daemon."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
from pathlib import Path
from typing import Any

from acp_tray.app.compose import assemble
from acp_tray.events import AgentState
from acp_tray.files import paths
from acp_tray.prefs.load import read_preferences
from acp_tray.presentation.router import Presentation
from acp_tray.state.history import HistoryWriter
from acp_tray.tray.menu import menu_of
from acp_tray.tray.snapshot import TraySnapshot
from tests.support.agents import auth_agent_table
from tests.support.daemons import DaemonProcess, agent_state, cli_env
from tests.support.dunst_menu import menu_lines, pick
from tests.support.repo import ROOT
from tests.support.waiting import until, until_async

FAKE_TERMINAL = ROOT / "tests" / "desktop" / "fake-terminal.sh"


def test_sign_in_notification_buttons_in_dunst_agent_and_terminal_methods(
    desktop: Any,
    dmenu: Path,
    tmp_path: Path,
    daemons: list[DaemonProcess],
) -> None:
    config = tmp_path / "config.toml"
    config.write_text(
        'notifier = "freedesktop"\n\n'
        + auth_agent_table("locked", tmp_path / "locked")
        + auth_agent_table("tui", tmp_path / "tui"),
        encoding="utf-8",
    )
    terminal = tmp_path / "terminal"
    terminal.mkdir()
    env = cli_env(**desktop.env, TERMINAL=str(FAKE_TERMINAL), ACP_TRAY_TEST_TERMINAL=str(terminal))
    mark = desktop.mark()
    daemon = DaemonProcess("run", "--config", str(config), env=env)
    daemons.append(daemon)
    until(
        lambda: agent_state("locked", env) == "needs sign-in" and agent_state("tui", env) == "needs sign-in",
        30,
        "sign-in",
    )

    # both notices are up, each with its agent's methods (env_var "API key": no button)
    pick(dmenu, "no such line")  # only to get dunst's menu copied
    until(lambda: (dmenu / "menu").exists() and len(menu_lines(dmenu)) >= 10, 10, "dunst's menu")
    lines = menu_lines(dmenu)
    summaries = {line["summary"] for line in lines}
    assert summaries == {"locked: Sign in to locked", "tui: Sign in to tui"}
    labels = sorted(line["label"] for line in lines if line["summary"] == "locked: Sign in to locked")
    assert labels == ["Always refused", "Broken terminal sign-in", "Open", "Sign in in a terminal", "Use a token"]
    subprocess.run(["import", "-window", "root", str(tmp_path / "signin-notification.png")], env=env, check=True)

    # an agent method: the daemon signs in through the agent
    pick(dmenu, "#Use a token (locked: Sign in to locked)")
    until(lambda: agent_state("locked", env) == "connected", 30, "locked to connect")
    assert (tmp_path / "locked" / "token").exists()

    # a terminal method: $TERMINAL runs `acp-tray login tui tui --pause`, which runs the agent's own
    # command with the method's args here and tells the daemon
    pick(dmenu, "#Sign in in a terminal (tui: Sign in to tui)")
    until(lambda: agent_state("tui", env) == "connected", 30, "tui to connect")
    called = (terminal / "called").read_text().splitlines()
    assert called[0] == "-e" and called[-4:] == ["login", "tui", "tui", "--pause"]
    output = (terminal / "output").read_text()
    assert "auth-agent: signed in" in output and "tui: signed in · connected" in output
    assert "Press Enter to close this window." in output

    history = [json.loads(line) for line in paths.history_file().read_text().splitlines()]
    assert [r["title"] for r in history if r["title"].startswith("Sign in")].count("Sign in to locked") == 1
    assert daemon.stop() == 0
    shown = desktop.since(mark)
    assert sum(n["summary"] == "locked: Sign in to locked" for n in shown) == 1


async def test_the_tray_sign_in_entry_signs_in_and_no_terminal_is_said_clearly(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    path.write_text(
        auth_agent_table("locked", tmp_path / "locked") + auth_agent_table("tui", tmp_path / "tui"), encoding="utf-8"
    )
    snapshots: list[TraySnapshot] = []
    shown: list[Presentation] = []
    daemon = assemble(
        read_preferences(path), history=HistoryWriter(tmp_path / "h.jsonl"), surfaces=[shown.append],
        status=lambda event: None, publishers=[snapshots.append], prefs_path=path,
    )  # fmt: skip
    stop = asyncio.Event()
    running = asyncio.create_task(daemon.run(stop))

    def entry(agent: str, label: str) -> Any:
        agents = next(e for e in menu_of(daemon.core.publisher.snapshot()) if e.label == "Agents")
        row = next(r for r in agents.children if r.label.startswith(agent + " "))
        sign_in = next((c for c in row.children if c.label == "Sign in"), None)
        return next(c for c in sign_in.children if c.label == label) if sign_in else None

    try:
        await until_async(
            lambda: entry("locked", "Use a token") and entry("tui", "Sign in in a terminal"), 30, "the entries"
        )
        daemon.tray.on_choice(entry("locked", "Use a token").action)
        await until_async(lambda: daemon.core.fleet.states["locked"].state is AgentState.CONNECTED, 30, "the sign-in")
        assert entry("locked", "Use a token") is None  # signed in: the entry goes
        # and the person who chose it is told (an answer: whatever the routes and DND say)
        await until_async(lambda: any(p.title == "Signed in" for p in shown), 10, "the sign-in's answer")
        signed = next(p for p in shown if p.title == "Signed in")
        assert (signed.agent, signed.notify, signed.description) == ("locked", True, "Signed in with Use a token.")

        saved = os.environ.get("PATH", ""), os.environ.pop("TERMINAL", None)
        os.environ["PATH"] = str(tmp_path / "no-terminals-here")
        try:
            daemon.tray.on_choice(entry("tui", "Sign in in a terminal").action)
        finally:
            os.environ["PATH"] = saved[0]
            if saved[1] is not None:
                os.environ["TERMINAL"] = saved[1]
        await until_async(lambda: any(p.title == "Sign-in failed" for p in shown), 10, "Sign-in failed")
        failed = next(p for p in shown if p.title == "Sign-in failed")
        assert failed.agent == "tui" and failed.severity == "error" and failed.notify
        assert failed.description == (
            "no terminal emulator found: set $TERMINAL (e.g. TERMINAL=xterm) or install one, "
            "or run `acp-tray login tui tui` in a terminal yourself"
        )
        assert daemon.core.fleet.states["tui"].state is AgentState.NEEDS_SIGNIN
    finally:
        stop.set()
        await running


async def test_a_sign_in_from_the_tray_that_the_agent_accepts_but_that_changes_nothing_is_not_signed_in(
    tmp_path: Path,
) -> None:
    """auth_agent's `hollow` method: `authenticate` answers {} and the agent still refuses. Chosen
    from the tray, it is said as `acp-tray login` says it ("did not take"), never "Signed in"."""
    path = tmp_path / "config.toml"
    table = auth_agent_table("locked", tmp_path / "locked")
    path.write_text(table.replace('AUTH_AGENT_AT = "new"', 'AUTH_AGENT_AT = "new", AUTH_AGENT_EXTRA = "hollow"'))
    shown: list[Presentation] = []
    daemon = assemble(
        read_preferences(path), history=HistoryWriter(tmp_path / "h.jsonl"), surfaces=[shown.append],
        status=lambda event: None, publishers=[lambda snapshot: None], prefs_path=path,
    )  # fmt: skip
    stop = asyncio.Event()
    running = asyncio.create_task(daemon.run(stop))

    def hollow() -> Any:
        agents = next(e for e in menu_of(daemon.core.publisher.snapshot()) if e.label == "Agents")
        row = next(r for r in agents.children if r.label.startswith("locked "))
        sign_in = next((c for c in row.children if c.label == "Sign in"), None)
        return next((c for c in sign_in.children if c.label == "Method hollow"), None) if sign_in else None

    try:
        await until_async(hollow, 30, "the hollow method's entry")
        daemon.tray.on_choice(hollow().action)
        await until_async(lambda: any(p.title == "Not signed in" for p in shown), 30, "the sign-in's answer")
        said = next(p for p in shown if p.title == "Not signed in")
        assert (said.agent, said.severity, said.notify) == ("locked", "warning", True)
        assert str(said.description).startswith("The sign-in with Method hollow did not take: it still refuses: ")
        assert not any(p.title == "Signed in" for p in shown)
        assert daemon.core.fleet.states["locked"].state is AgentState.NEEDS_SIGNIN
    finally:
        stop.set()
        await running
