"""What an ACP 2 agent built on the reference TypeScript SDK (`v2_agent.mjs`) asks of the person, as the
person meets it: the real daemon (its notifications on dunst, under Xvfb, on a private bus) and the
person's commands.

- A v2 permission request names its tool call in `subject.toolCall` and says why in `description`:
  the notification and `acp-tray approvals` say what it runs, touches and its kind, as for ACP 1.
- A v2 turn that ends in `idle` with stopReason "error" and error -32000 (what claude-agent-acp does
  without credentials) is a sign-in need: the agent "needs sign-in", the sign-in notice names its
  method, the prompt fails saying so; after `acp-tray login` the next prompt runs.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.support.agents import agent_table
from tests.support.config import history, write_config
from tests.support.daemons import DaemonProcess, agent_state, cli, cli_env, cli_started
from tests.support.repo import ROOT
from tests.support.waiting import until

INTEROP = ROOT / "tests" / "interop"
V2_AGENT = INTEROP / "v2_agent.mjs"


def on_dunst(desktop: Any, daemons: list[DaemonProcess], table: str) -> int:
    """The daemon on `table` (with its tray), notifying through dunst; the mark of what dunst showed before it."""
    write_config(table, notifier="freedesktop", protocol="auto")
    mark: int = desktop.mark()
    daemon = DaemonProcess("run", env=cli_env(**desktop.env, PYSTRAY_BACKEND="xorg"))
    daemons.append(daemon)
    assert "notifications: freedesktop (dunst" in daemon.wait_for_line("notifications:")
    daemon.wait_for_lines("v2agent  connected")
    return mark


def shown(desktop: Any, mark: int, summary: str) -> list[dict[str, Any]]:
    return [n for n in desktop.since(mark) if summary in n["summary"]]


def test_a_v2_permission_request_says_what_it_runs_and_touches_on_dunst_and_in_the_cli(
    node: str, desktop: Any, daemons: list[DaemonProcess], tmp_path: Path
) -> None:
    work = tmp_path / "work"
    work.mkdir()
    mark = on_dunst(desktop, daemons, agent_table("v2agent", [node, str(V2_AGENT)], cwd=str(work)))
    prompt = cli_started("prompt", "v2agent", "clean up")
    try:
        (request,) = until(lambda: json.loads(cli("approvals", "--json").stdout), what="the v2 permission request")
        expected = [
            "Why: rm -rf build/ (v2 interop agent)",
            "Runs: rm -rf build/",
            f"Touches: {work}/build",
            "Kind: delete",
        ]
        (notification,) = until(lambda: shown(desktop, mark, "Needs approval"), what="the approval on dunst")
        body = notification["body"]
        assert "v2agent wants to: Delete build/" in body
        assert [line for line in expected if line not in body] == [], body
        listed = cli("approvals").stdout
        assert [line for line in expected if line not in listed] == [], listed
        assert request["details"] == expected

        assert cli("approve", request["id"]).returncode == 0
        out, err = prompt.communicate(timeout=30)
    finally:
        if prompt.poll() is None:
            prompt.kill()
    assert prompt.returncode == 0, err
    assert "chosen: allow (allow_once)" in out


def test_a_v2_turn_ending_in_an_authentication_error_asks_for_a_sign_in_like_v1(
    node: str, desktop: Any, daemons: list[DaemonProcess]
) -> None:
    table = agent_table("v2agent", [node, str(V2_AGENT)], {"V2_AGENT_AUTH": "1"})
    mark = on_dunst(desktop, daemons, table)

    failed = cli("prompt", "v2agent", "hello")
    assert failed.returncode != 0
    assert "v2agent needs you to sign in" in failed.stderr + failed.stdout
    assert "acp-tray login v2agent" in failed.stderr + failed.stdout
    row = next(a for a in json.loads(cli("status", "--json").stdout)["agents"] if a["name"] == "v2agent")
    assert row["state"] == "needs sign-in", row
    assert "Log in with the interop agent" in [m["name"] for m in row["sign_in_methods"]]

    (notice,) = until(lambda: shown(desktop, mark, "Sign in to v2agent"), what="the sign-in notice on dunst")
    assert "Log in with the interop agent" in notice["body"]
    titles = [r["title"] for r in history() if r["agent"] == "v2agent" and r["source"] == "acp-tray"]
    assert not [t for t in titles if t.startswith("Prompt failed")], titles  # not a failed prompt: a sign-in

    signed = cli("login", "v2agent", "interop-login")
    assert signed.returncode == 0, signed.stderr
    until(lambda: agent_state("v2agent") == "connected", what="connected again")
    # the next turn runs (and asks its question: no sign-in in the way)
    prompt = cli_started("prompt", "v2agent", "clean up")
    try:
        (request,) = until(lambda: json.loads(cli("approvals", "--json").stdout), what="the turn after the sign-in")
        assert cli("deny", request["id"]).returncode == 0
        prompt.communicate(timeout=30)
    finally:
        if prompt.poll() is None:
            prompt.kill()
    assert prompt.returncode == 0
