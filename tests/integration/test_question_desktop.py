"""Questions on a real notification server (dunst on a private bus, the real daemon with its X11
tray) from the TypeScript SDK's question agent: the notification says who asks what and offers a
button per choice, which answers the agent; DND holds a question as it holds an approval and it
pops up when DND ends; a page question's "Open" opens it (only when pressed) and accepts."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

from acp_tray.files import paths
from acp_tray.state.history import read_history
from tests.support.agents import agent_table
from tests.support.daemons import DaemonProcess, cli_env
from tests.support.dunst_menu import pick
from tests.support.repo import ROOT
from tests.support.waiting import until

AGENT = ROOT / "tests" / "interop" / "question_agent.mjs"


def displayed(env: dict[str, str]) -> int:
    return int(subprocess.run(["dunstctl", "count", "displayed"], env=env, capture_output=True).stdout)


def run(env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "acp_tray", *args], env=env, capture_output=True, text=True)


def question_records() -> list[dict[str, Any]]:
    records = [r for r in read_history(paths.history_file()) if isinstance(r, dict)]
    return [r for r in records if r["title"] == "Question"]


def started(
    desktop: Any, daemons: list[DaemonProcess], node: str, tmp_path: Path, preferences: str = ""
) -> dict[str, str]:
    """The daemon with the question agent (ACP 2, its default), and a stand-in `xdg-open` first on
    PATH that writes down what it was asked to open."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    opener = bin_dir / "xdg-open"
    opener.write_text(f'#!/bin/sh\nprintf "%s\\n" "$1" >> {tmp_path / "opened"}\n', encoding="utf-8")
    opener.chmod(0o755)
    log = tmp_path / "asker.log"
    path = paths.config_file()
    path.parent.mkdir(parents=True, exist_ok=True)
    table = agent_table("asker", [node, str(AGENT)], {"QUESTION_AGENT_LOG": str(log)})
    path.write_text(preferences + table, encoding="utf-8")
    env = cli_env(**desktop.env, PYSTRAY_BACKEND="xorg")
    env["PATH"] = f"{bin_dir}:{env['PATH']}"
    daemon = DaemonProcess("run", env=env)
    daemons.append(daemon)
    assert "notifications: freedesktop (dunst" in daemon.wait_for_line("notifications:")
    daemon.wait_for_lines("asker  connected")
    desktop.close_all()
    return env


def asking(env: dict[str, str], what: str) -> subprocess.Popen[str]:
    prompt = subprocess.Popen(
        [sys.executable, "-m", "acp_tray", "prompt", "asker", what], env=env, stdout=subprocess.PIPE, text=True
    )
    until(lambda: json.loads(run(env, "questions", "--json").stdout), what="the question")
    return prompt


def test_a_question_held_by_dnd_pops_up_when_dnd_ends_and_its_choice_button_answers(
    desktop: Any, dmenu: Path, daemons: list[DaemonProcess], node: str, tmp_path: Path
) -> None:
    env = started(desktop, daemons, node, tmp_path, "[dnd]\nenabled = true\n\n")
    prompt = asking(env, "pick")
    until(question_records, what="the question in the history")
    (record,) = question_records()
    assert record["suppressed"] == "dnd" and 'nor "approvals"' in record["reason"]  # held, as an approval is
    assert displayed(env) == 0
    assert run(env, "dnd", "off").returncode == 0
    until(lambda: displayed(env) == 1, timeout=30, what="the held question to pop up when DND ended")
    pick(dmenu, "#Blue (asker: Question)")
    assert prompt.communicate(timeout=30)[0] == 'answer: accept {"colour":"blue"}\n'  # the button's answer
    until(lambda: displayed(env) == 0, what="the answered question to leave the screen")
    assert run(env, "questions", "--json").stdout.strip() == "[]"
    (shown,) = [item for item in desktop.history() if item["summary"] == "asker: Question"]
    # who asks what; its buttons answer it, so no commands to copy
    assert shown["body"] == (
        "asker asks: Which colour should the button be?\n• Colour: one of: red (Red), blue (Blue)\n"
        "No answer in 5 min: cancelled."
    )


def test_a_page_question_opens_only_when_open_is_pressed(
    desktop: Any, dmenu: Path, daemons: list[DaemonProcess], node: str, tmp_path: Path
) -> None:
    env = started(desktop, daemons, node, tmp_path)
    prompt = asking(env, "url")
    until(lambda: displayed(env) == 1, what="the question on screen")
    assert not (tmp_path / "opened").exists()  # never by itself
    pick(dmenu, "#Open (asker: Question)")
    assert prompt.communicate(timeout=30)[0] == "answer: accept\n"
    until(lambda: (tmp_path / "opened").exists(), what="the page handed to the browser")
    assert (tmp_path / "opened").read_text() == "https://auth.example.com/device?code=SECRET-DEVICE-CODE\n"
    until(lambda: displayed(env) == 0, what="the answered question to leave the screen")
    (shown,) = [item for item in desktop.history() if item["summary"] == "asker: Question"]
    assert shown["body"].startswith("asker asks you to open a page on auth.example.com: Sign in to the example MCP")
    assert "SECRET-DEVICE-CODE" not in shown["body"]
