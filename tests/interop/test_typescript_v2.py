"""ACP v2 interop with the reference TypeScript SDK (`@agentclientprotocol/sdk`, pinned in package-lock.json).

The real daemon (`acp-tray run --headless`, isolated XDG dirs) hosts real node agents, and the
person's commands (`acp-tray prompt|approvals|approve|status`) drive them:

- `v2_agent.mjs`: an agent on the SDK's experimental v2 API (a full v2 turn: acknowledged prompt,
  state updates, a v2 permission request, an unknown update variant, the idle state ending it);
- `router_agent.mjs`: an agent behind the SDK's `agentProtocolRouter()`, with a v1 implementation
  only or a v1 and a v2 one. The router converts a v2 `initialize` for its v1 implementation
  (`v2InitializeToV1`) and drops `clientCapabilities.session.notices` on the way, so acp-tray's
  auto offer (2) to a v1-only router must end on a fresh connection offered 1, where the router
  validates the params under the v1 schema and keeps `notices`.
"""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from acp_tray.files import paths
from acp_tray.state.history import read_history
from tests.support.agents import agent_table
from tests.support.config import write_config
from tests.support.daemons import DaemonProcess, cli, cli_env, start
from tests.support.repo import ROOT
from tests.support.waiting import until

INTEROP = ROOT / "tests" / "interop"
V2_AGENT = INTEROP / "v2_agent.mjs"
ROUTER_AGENT = INTEROP / "router_agent.mjs"

V2_NOTICES = [
    ("info", "V2 info"),
    ("warning", "V2 warning"),
    ("error", "V2 error"),
    ("_acme.custom", "V2 extension"),
]
ROUTER_NOTICES = [("info", "Router info"), ("warning", "Router warning"), ("_router.custom", "Router extension")]


# helpers ------------------------------------------------------------------------------------


def quit_daemon(daemon: DaemonProcess) -> None:
    assert cli("quit").returncode == 0
    assert daemon.proc.wait(15) == 0


def records(agent: str) -> list[dict[str, Any]]:
    return [r for r in read_history(paths.history_file()) if isinstance(r, dict) and r.get("agent") == agent]


def agent_notices(agent: str) -> list[tuple[str, str]]:
    return [(r["severity"], r["title"]) for r in records(agent) if r["source"] == "agent" and r["kind"] == "notice"]


def status_row(agent: str) -> dict[str, Any]:
    result = cli("status", "--json")
    assert result.returncode == 0, result.stderr
    row: dict[str, Any] = next(a for a in json.loads(result.stdout)["agents"] if a["name"] == agent)
    return row


def human_status_line(agent: str) -> str:
    result = cli("status")
    assert result.returncode == 0, result.stderr
    return next(line for line in result.stdout.splitlines() if line.strip().startswith(agent + " "))


def agent_log(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()] if path.exists() else []


def events(log: list[dict[str, Any]], name: str) -> list[dict[str, Any]]:
    return [e for e in log if e["event"] == name]


def remembered_versions() -> dict[str, Any]:
    file = paths.state_dir() / "protocol-versions.json"
    return json.loads(file.read_text(encoding="utf-8")) if file.exists() else {}


# the v2 agent: a full turn ------------------------------------------------------------------


def test_v2_agent_runs_a_full_turn_with_notices_approval_and_finished(
    node: str, daemons: list[DaemonProcess], tmp_path: Path
) -> None:
    log = tmp_path / "v2agent.log"
    write_config(agent_table("v2agent", [node, str(V2_AGENT)], {"V2_AGENT_LOG": str(log)}), protocol="auto")
    daemon = start(daemons, "v2agent")

    # the notices sent right after session/new, exactly as sent (the extension severity too)
    until(lambda: len(agent_notices("v2agent")) >= 4, what="the v2 agent's notices")
    assert agent_notices("v2agent") == V2_NOTICES
    (initialize,) = events(agent_log(log), "initialize")
    assert initialize["protocolVersion"] == 2  # the v2 app got a v2 offer ...
    assert initialize["info"]["name"] == "acp-tray"  # ... with v2's `info`

    row = status_row("v2agent")
    assert row["state"] == "connected" and row["sessions"] == 1
    assert row["detail"].endswith(" · ACP 2") and row["detail"].startswith("session ts-v2-session-1")
    assert "ACP 2" in human_status_line("v2agent")

    prompt = subprocess.Popen(
        [sys.executable, "-m", "acp_tray", "prompt", "v2agent", "clean", "up"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=cli_env(),
        cwd=ROOT,
    )
    try:
        (request,) = until(
            lambda: [a for a in json.loads(cli("approvals", "--json").stdout) if a["agent"] == "v2agent"],
            what="the v2 permission request",
        )
        assert request["title"] == "Delete build/"  # v2's top-level title
        assert [(o["id"], o["kind"]) for o in request["options"]] == [
            ("allow", "allow_once"),
            ("reject", "reject_once"),
        ]
        assert "Delete build/" in cli("status").stdout  # waiting for the person
        approved = cli("approve", request["id"])
        assert approved.returncode == 0 and "answered allow" in approved.stdout, approved.stderr
        out, err = prompt.communicate(timeout=30)
    finally:
        if prompt.poll() is None:
            prompt.kill()
    assert prompt.returncode == 0, err
    # chunks, then the whole-message upsert of the same message (only what it adds), then a
    # message sent whole
    assert out == "Cleaning up: build/ must go.\nchosen: allow (allow_once)\nDone.\nSummary: 1 directory removed.\n"

    (answered,) = events(agent_log(log), "permission answered")
    assert answered["answer"] == {"outcome": {"outcome": "selected", "optionId": "allow"}}
    (ended,) = events(agent_log(log), "turn ended")
    assert ended["stopReason"] == "end_turn"

    # acp-tray's own "Finished", from the idle state_update (v2 has no prompt result to end the turn)
    until(lambda: any(r["title"] == "Finished" for r in records("v2agent")), what="acp-tray's Finished")
    time.sleep(0.3)  # anything the unknown update might have caused would be here by now
    own = [(r["severity"], r["title"]) for r in records("v2agent") if r["source"] == "acp-tray"]
    assert own == [("warning", "Needs approval"), ("info", "Finished")]
    assert agent_notices("v2agent") == V2_NOTICES  # nothing more from the agent
    # the unknown `_acme.progress` update is an extension: no malformed record, no warning
    assert [r for r in records("v2agent") if r["kind"] == "malformed"] == []
    assert not [line for line in daemon.err_lines if "malformed" in line]

    row = status_row("v2agent")
    assert row["state"] == "connected" and row["busy"] == 0 and row["detail"].endswith("ACP 2")
    quit_daemon(daemon)
    assert events(agent_log(log), "session/close")  # v2: sessions are closed on the way out


# the router: v1 only -----------------------------------------------------------------------


def test_router_with_v1_only_ends_on_a_fresh_v1_connection_that_keeps_notices(
    node: str, daemons: list[DaemonProcess], tmp_path: Path
) -> None:
    log = tmp_path / "router.log"
    command = [node, str(ROUTER_AGENT), "--versions=1"]
    write_config(agent_table("router", command, {"ROUTER_AGENT_LOG": str(log)}), protocol="auto")
    daemon = start(daemons, "router")
    until(lambda: len(agent_notices("router")) >= 3, what="the router agent's notices")
    assert agent_notices("router") == ROUTER_NOTICES

    entries = agent_log(log)
    pids = list(dict.fromkeys(e["pid"] for e in entries))
    assert len(pids) == 2, entries  # the agent was started twice: one connection each
    first = [e for e in entries if e["pid"] == pids[0]]
    second = [e for e in entries if e["pid"] == pids[1]]

    # 1st connection: acp-tray offered 2 (with the v1 fields too, notices among them) ...
    (sent,) = events(first, "client sent initialize")
    assert sent["params"]["protocolVersion"] == 2
    assert sent["params"]["clientCapabilities"] == {
        "session": {"notices": {}, "compaction": {}},
        "auth": {"terminal": True},
        "elicitation": {"form": {}, "url": {}},
        "subagents": {},
        "_meta": {"terminal-auth": True},
    }
    assert sent["params"]["info"]["name"] == "acp-tray"
    # ... the router converted the v2 request for its v1 implementation and dropped `notices`
    (handed,) = events(first, "router handed initialize")
    assert handed["impl"] == "v1" and handed["params"]["protocolVersion"] == 1
    assert "notices" not in handed["params"]["clientCapabilities"].get("session", {})
    (v1_first,) = events(first, "v1 initialize")
    assert v1_first["notices"] is False
    # acp-tray did not go on with that connection (no session/new: no fallback chunk, no notices)
    assert not events(first, "sent fallback chunk") and not events(first, "sent notices")

    # 2nd connection: offered 1; the router validates it as v1 and keeps `notices`
    (sent,) = events(second, "client sent initialize")
    assert sent["params"]["protocolVersion"] == 1 and "info" not in sent["params"]
    (handed,) = events(second, "router handed initialize")
    assert handed["impl"] == "v1" and handed["params"]["clientCapabilities"]["session"] == {
        "notices": {},
        "compaction": {},
    }
    (v1_second,) = events(second, "v1 initialize")
    assert v1_second["notices"] is True
    assert v1_second["parsedClientCapabilities"]["session"] == {"notices": {}, "compaction": {}}
    assert [e["count"] for e in events(second, "sent notices")] == [3]

    row = status_row("router")
    assert row["state"] == "connected" and row["detail"].endswith(" · ACP 1")
    assert "ACP 1" in human_status_line("router")
    remembered = remembered_versions()
    assert remembered["router"]["version"] == 1 and remembered["router"]["target"] == " ".join(command)

    # a v1 turn works on it
    pong = cli("prompt", "router", "ping")
    assert pong.returncode == 0 and pong.stdout == "pong from v1\n", pong.stderr

    # after a restart of the daemon the agent is offered 1 directly: one start, one connection
    quit_daemon(daemon)
    start(daemons, "router")
    until(lambda: len(agent_notices("router")) >= 6, what="the notices after the restart")
    entries = [e for e in agent_log(log) if e["pid"] not in pids]
    assert len({e["pid"] for e in entries}) == 1
    (sent,) = events(entries, "client sent initialize")
    assert sent["params"]["protocolVersion"] == 1
    (v1_again,) = events(entries, "v1 initialize")
    assert v1_again["notices"] is True
    assert status_row("router")["detail"].endswith(" · ACP 1")


# the router: v1 and v2 ---------------------------------------------------------------------


def test_router_with_v1_and_v2_negotiates_v2_and_notices_flow(
    node: str, daemons: list[DaemonProcess], tmp_path: Path
) -> None:
    log = tmp_path / "router.log"
    command = [node, str(ROUTER_AGENT), "--versions=1,2"]
    write_config(agent_table("router", command, {"ROUTER_AGENT_LOG": str(log)}), protocol="auto")
    start(daemons, "router")
    until(lambda: len(agent_notices("router")) >= 3, what="the router agent's notices")
    assert agent_notices("router") == ROUTER_NOTICES

    entries = agent_log(log)
    assert len({e["pid"] for e in entries}) == 1  # one start, one connection: no fallback
    (handed,) = events(entries, "router handed initialize")
    assert handed["impl"] == "v2" and handed["params"]["protocolVersion"] == 2
    # under v2 the router validates the request with the v2 schema: acp-tray's v1 fields are dropped
    assert "clientCapabilities" not in handed["params"] and "clientInfo" not in handed["params"]
    assert handed["params"]["info"]["name"] == "acp-tray"
    assert [e["count"] for e in events(entries, "sent notices") if e["impl"] == "v2"] == [3]
    assert not events(entries, "v1 initialize")

    row = status_row("router")
    assert row["state"] == "connected" and row["detail"].endswith(" · ACP 2")
    assert "ACP 2" in human_status_line("router")
    assert "router" not in remembered_versions()

    # a v2 turn through the router: acknowledged, ended by the idle state
    pong = cli("prompt", "router", "ping")
    assert pong.returncode == 0 and pong.stdout == "pong from v2\n", pong.stderr
    until(lambda: any(r["title"] == "Finished" for r in records("router")), what="acp-tray's Finished")
    assert [r for r in records("router") if r["kind"] == "malformed"] == []
