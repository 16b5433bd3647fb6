"""Replayed history is not live: an ACP 1 agent built on the reference TypeScript SDK
(`replay_agent.mjs`) replays its session's history, a notice among it, inside `session/load`, as
ACP 1 requires. After a restart of the real daemon (its notifications on dunst, under Xvfb, on a
private bus) the notice does not pop up again: it is in the history, marked replayed."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.support.agents import agent_table
from tests.support.config import history, write_config
from tests.support.daemons import DaemonProcess, cli, cli_env
from tests.support.repo import ROOT
from tests.support.waiting import until

INTEROP = ROOT / "tests" / "interop"
REPLAY_AGENT = INTEROP / "replay_agent.mjs"
TITLE = "Deprecated setting"


def started(desktop: Any, daemons: list[DaemonProcess]) -> DaemonProcess:
    """The daemon (with its tray), notifying through dunst, once the agent is connected."""
    daemon = DaemonProcess("run", env=cli_env(**desktop.env, PYSTRAY_BACKEND="xorg"))
    daemons.append(daemon)
    assert "notifications: freedesktop (dunst" in daemon.wait_for_line("notifications:")
    daemon.wait_for_lines("replay  connected")
    return daemon


def popped_up(desktop: Any, mark: int) -> list[dict[str, Any]]:
    return [n for n in desktop.since(mark) if TITLE in n["summary"]]


def notice_records() -> list[dict[str, Any]]:
    return [r for r in history() if r["agent"] == "replay" and r["title"] == TITLE]


def events(log: Path, name: str) -> list[dict[str, Any]]:
    lines = log.read_text(encoding="utf-8").splitlines() if log.exists() else []
    return [e for e in map(json.loads, lines) if e["event"] == name]


def test_a_notice_replayed_inside_session_load_does_not_pop_up_again_after_a_restart(
    node: str, desktop: Any, daemons: list[DaemonProcess], tmp_path: Path
) -> None:
    log = tmp_path / "agent.log"
    env = {"REPLAY_AGENT_STATE": str(tmp_path / "sessions.json"), "REPLAY_AGENT_LOG": str(log)}
    write_config(agent_table("replay", [node, str(REPLAY_AGENT)], env, protocol=1), notifier="freedesktop")
    mark = desktop.mark()
    daemon = started(desktop, daemons)
    (live,) = until(lambda: popped_up(desktop, mark), what="the live notice on dunst")
    assert "deprecated" in live["body"]

    assert cli("quit").returncode == 0
    assert daemon.proc.wait(15) == 0
    mark = desktop.mark()
    started(desktop, daemons)
    until(lambda: events(log, "session/load replayed"), what="the agent's replay inside session/load")
    until(lambda: len(notice_records()) == 2, what="the replayed notice in the history")

    assert popped_up(desktop, mark) == []  # nothing new on the screen
    first, replayed = notice_records()
    assert (first["notified"], first["suppressed"]) == (True, None)
    assert (replayed["notified"], replayed["tray"], replayed["suppressed"]) == (False, False, "replayed")
    assert replayed["session_id"] == first["session_id"]  # the same session, loaded again
