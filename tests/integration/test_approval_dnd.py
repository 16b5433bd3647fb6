"""Approvals and do not disturb, on a real notification server: dunst on a private bus, the real
daemon (with its X11 tray) and the bundled demo agent asking to delete build/. An approval DND
held back pops up, with its buttons, when DND ends, and its button answers the agent; with
`[dnd] allow = ["approvals"]` it pops up during DND. Its body is the request, not the commands."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from acp_tray.files import paths
from acp_tray.state.history import read_history
from tests.support.daemons import DaemonProcess, cli_env
from tests.support.dunst_menu import pick
from tests.support.waiting import until

# the demo's own notices go nowhere (an agent's routes are not acp-tray's): only the approval shows
DEMO = """[agents.demo]
command = ["acp-tray", "demo-agent"]
permission_timeout = 300
[agents.demo.route]
info = "none"
warning = "none"
error = "none"
other = "none"
"""


def displayed(desktop: Any) -> int:
    count = subprocess.run(["dunstctl", "count", "displayed"], env={**cli_env(), **desktop.env}, capture_output=True)
    return int(count.stdout)


def approval_records() -> list[dict[str, Any]]:
    records = [r for r in read_history(paths.history_file()) if isinstance(r, dict)]
    return [r for r in records if r["title"] == "Needs approval"]


def started(desktop: Any, daemons: list[DaemonProcess], config: str) -> dict[str, str]:
    """The daemon on `config` (the person's own preferences file, which `acp-tray dnd` writes too)."""
    path = paths.config_file()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(config, encoding="utf-8")
    env = cli_env(**desktop.env, ACP_TRAY_DEMO_INTERVAL="0.05", PYSTRAY_BACKEND="xorg")
    daemon = DaemonProcess("run", env=env)
    daemons.append(daemon)
    assert "notifications: freedesktop (dunst" in daemon.wait_for_line("notifications:")
    daemon.wait_for_lines("demo  connected")
    desktop.close_all()
    return env


def run(env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "acp_tray", *args], env=env, capture_output=True, text=True)


def asking(env: dict[str, str]) -> tuple[subprocess.Popen[str], str]:
    """`acp-tray prompt demo ...`, which the demo answers by asking to delete build/; the request's id."""
    prompt = subprocess.Popen(
        [sys.executable, "-m", "acp_tray", "prompt", "demo", "delete the build folder"],
        env=env,
        stdout=subprocess.PIPE,
        text=True,
    )
    (request,) = until(lambda: json.loads(run(env, "approvals", "--json").stdout), what="the approval request")
    return prompt, str(request["id"])


@pytest.mark.parametrize("ending", ["its time is up", "dnd off"])
def test_an_approval_held_by_dnd_pops_up_when_dnd_ends_and_its_button_answers_the_agent(
    desktop: Any, dmenu: Path, daemons: list[DaemonProcess], ending: str
) -> None:
    env = started(desktop, daemons, DEMO)
    timed = ending == "its time is up"
    assert run(env, "dnd", *(["for", "10s"] if timed else ["on"])).returncode == 0
    prompt, _ = asking(env)
    until(lambda: approval_records(), what="the request in the history")
    (record,) = approval_records()
    assert record["suppressed"] == "dnd" and 'nor "approvals"' in record["reason"]  # held back, and why
    assert json.loads(run(env, "dnd", "status", "--json").stdout)["active"]
    assert displayed(desktop) == 0  # DND: nothing on screen

    # DND ends (by its timer, no polling; or switched off): the request still waits, so it pops up now
    if not timed:
        assert run(env, "dnd", "off").returncode == 0
    until(lambda: displayed(desktop) == 1, timeout=30, what="the held approval to pop up when DND ended")
    assert not json.loads(run(env, "dnd", "status", "--json").stdout)["active"]
    pick(dmenu, "#✔ Allow once (demo: Needs approval)")
    assert "You allowed it" in prompt.communicate(timeout=30)[0]  # the agent got the answer from the button
    until(lambda: displayed(desktop) == 0, what="the answered approval to leave the screen")
    (shown,) = [item for item in desktop.history() if item["summary"] == "demo: Needs approval"]
    # the request first; no commands to copy: its buttons answer it
    assert shown["body"] == "demo wants to: Delete the build/ folder\nKind: delete\nNo answer in 5 min: cancelled."
    assert len(approval_records()) == 1  # presented again, not a second notice


def test_an_approval_let_through_dnd_by_allow_approvals_pops_up_during_dnd(
    desktop: Any, daemons: list[DaemonProcess]
) -> None:
    env = started(desktop, daemons, '[dnd]\nenabled = true\nallow = ["approvals"]\n\n' + DEMO)
    assert json.loads(run(env, "dnd", "status", "--json").stdout)["active"]
    prompt, request = asking(env)
    until(lambda: displayed(desktop) == 1, what="the approval on screen during DND")
    (record,) = approval_records()
    assert record["suppressed"] is None and record["notified"]
    assert run(env, "deny", request).returncode == 0
    assert "Not allowed" in prompt.communicate(timeout=30)[0]
    until(lambda: displayed(desktop) == 0, what="the answered approval to leave the screen")
