"""Usage, cost, rate limits, session titles and compaction from an agent on the reference
TypeScript SDK (`usage_agent.mjs`, `@agentclientprotocol/sdk` 2.4.0), over ACP 1 and 2, seen as a
person sees them: `sessions`, `status` (and `--json`), `status --watch --json`, the history's one
rate-limit warning, and today's total kept in the state directory (0600) across a restart.
"""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
import threading
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest

from acp_tray.files import paths
from tests.support.agents import agent_table
from tests.support.config import history, write_config
from tests.support.daemons import DaemonProcess, cli, cli_env, start
from tests.support.repo import ROOT
from tests.support.waiting import until

USAGE_AGENT = ROOT / "tests" / "interop" / "usage_agent.mjs"


class Watcher:
    """`acp-tray status --watch --json`, its lines gathered as they come."""

    def __init__(self) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "acp_tray", "status", "--watch", "--json"],
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
            env=cli_env(),
            cwd=ROOT,
        )
        self.lines: list[dict[str, Any]] = []
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self.lines.append(json.loads(line))

    def stop(self) -> None:
        self.proc.kill()
        self.proc.wait(10)


def session_row(agent: str) -> dict[str, Any]:
    rows = json.loads(cli("sessions", "--json").stdout)
    return next((r for r in rows if r["agent"] == agent and r["session_id"]), {})


def status() -> dict[str, Any]:
    result = cli("status", "--json")
    assert result.returncode == 0, result.stderr
    parsed: dict[str, Any] = json.loads(result.stdout)
    return parsed


def reset_said(at: datetime) -> str:
    """How a reset in an hour is said: at a time today, or (past midnight) with its day."""
    return f"resets at {at:%H:%M}" if at.date() == datetime.now().date() else f"resets {at:%a %H:%M}"


def agent_row(agent: str) -> dict[str, Any]:
    return next(a for a in status()["agents"] if a["name"] == agent)


@pytest.mark.parametrize("version", [1, 2])
def test_usage_cost_limit_title_and_compaction_reach_the_person(
    node: str, daemons: list[DaemonProcess], tmp_path: Path, version: int
) -> None:
    go, log = tmp_path / "go", tmp_path / "agent.log"
    env = {"USAGE_AGENT_GO": str(go), "USAGE_AGENT_LOG": str(log)}
    write_config(agent_table("meter", [node, str(USAGE_AGENT), f"--version={version}"], env), protocol=version)
    daemon = start(daemons, "meter")
    watcher = Watcher()
    until(lambda: watcher.lines, what="the watch snapshot")
    prompt = subprocess.Popen(
        [sys.executable, "-m", "acp_tray", "prompt", "meter", "say", "hello"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=cli_env(), cwd=ROOT,
    )  # fmt: skip
    try:
        # while the agent compacts: the session is titled, compacting, and costs what it said so far
        row = until(lambda: (r := session_row("meter")).get("compacting") and r, what="the session compacting")
        assert row["title"] == "say hello"
        assert row["usage"]["used"] == 1230 and row["usage"]["size"] == 1_000_000
        assert row["usage"]["cost"] == {"amount": 0.0054, "currency": "USD", "text": "0.0054 USD"}
        listed = cli("sessions").stdout
        assert "“say hello”" in listed and "compacting the conversation…" in listed, listed
        assert "context 1,230 of 1,000,000 tokens (0 %)" in listed, listed
        go.touch()
        out, err = prompt.communicate(timeout=30)
    finally:
        if prompt.poll() is None:
            prompt.kill()
    assert prompt.returncode == 0 and out == "hello\n", err

    row = until(lambda: (r := session_row("meter")).get("usage", {}).get("used") == 2048 and r, what="the last usage")
    assert row["compacting"] is False and row["title"] == "say hello"
    assert row["usage"]["turn"]["text"] == "0.027 USD" and row["usage"]["cost"]["text"] == "0.027 USD"

    # the agent's day, its rate limit, and today across agents
    agent = until(lambda: (a := agent_row("meter"))["limits"] and a, what="the rate limit in status")
    assert [c["text"] for c in agent["today"]] == ["0.027 USD"]
    (limit,) = agent["limits"]
    assert limit["kind"] == "five_hour" and limit["used"] == 90 and limit["status"] == "allowed_warning"
    resets = datetime.fromisoformat(limit["resets_at"])
    said = f"90 % of the five-hour limit used; {reset_said(resets.astimezone())}"
    assert limit["text"] == said
    assert [c["text"] for c in status()["today"]] == ["0.027 USD"]
    human = cli("status").stdout
    assert "today 0.027 USD" in human and said in human, human

    # one warning of acp-tray's own, though the agent reported the limit twice
    warnings = [r for r in history() if r["source"] == "acp-tray" and r["severity"] == "warning"]
    assert [(r["agent"], r["title"]) for r in warnings] == [("meter", said[:1].upper() + said[1:])]

    # the watch stream carried each new field
    until(lambda: any("today" in line and line["today"] for line in watcher.lines), what="today in watch")
    watcher.stop()
    sessions = [s for line in watcher.lines for s in line.get("sessions", []) if s["agent"] == "meter"]
    assert any(s["compacting"] for s in sessions) and any(s["title"] == "say hello" for s in sessions)
    assert any(s["usage"] and s["usage"]["turn"] for s in sessions)
    agents = [a for line in watcher.lines for a in line.get("agents", []) if a["name"] == "meter"]
    assert any(a["limits"] for a in agents) and any(a["today"] for a in agents)
    if version == 1:  # compaction is sent only to a client that advertised it
        (initialize,) = [json.loads(x) for x in log.read_text().splitlines() if '"initialize"' in x]
        assert initialize["clientCapabilities"]["session"]["compaction"] == {}

    # today's total is kept (0600) and survives a restart
    assert cli("quit").returncode == 0 and daemon.proc.wait(15) == 0
    kept = paths.usage_file()
    assert stat.S_IMODE(os.stat(kept).st_mode) == 0o600
    assert json.loads(kept.read_text())["days"][datetime.now().date().isoformat()] == {"meter": {"USD": 0.027}}
    start(daemons, "meter")
    assert [c["text"] for c in status()["today"]] == ["0.027 USD"]


@pytest.mark.parametrize("version", [1, 2])
def test_a_prompt_refused_for_the_usage_limit_says_so_and_when_it_resets(
    node: str, daemons: list[DaemonProcess], tmp_path: Path, version: int
) -> None:
    """claude's refusal (code -32000 "Claude AI usage limit reached", `resetsAt` in its data; v1 the
    prompt's error, v2 an idle with that error) is acp-tray's own `error` notice naming the limit and
    its reset, not a plain "Prompt failed"."""
    log = tmp_path / "agent.log"
    write_config(agent_table("meter", [node, str(USAGE_AGENT), f"--version={version}"], {"USAGE_AGENT_LOG": str(log)}))
    start(daemons, "meter")
    failed = cli("prompt", "meter", "over the limit")
    assert failed.returncode != 0 and "usage limit reached" in failed.stderr, failed
    (refused,) = [json.loads(x) for x in log.read_text().splitlines() if '"refused"' in x]
    resets = reset_said(datetime.fromtimestamp(refused["resetsAt"]))
    (told,) = until(lambda: [r for r in history() if r["source"] == "acp-tray" and r["agent"] == "meter"], what="it")
    assert (told["severity"], told["title"]) == ("error", f"the usage limit reached; {resets}"), told
    assert str(told["description"]).startswith("The prompt failed: Claude AI usage limit reached"), told
