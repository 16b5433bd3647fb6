"""Fault: an agent is killed with SIGKILL in the middle of a turn.

The person's `acp-tray prompt` must end (exit 1, a message saying why) instead of waiting for
ever; acp-tray says the agent crashed (its own notice, in the history); the supervisor starts
the agent again and the next prompt works; the daemon's other agent never notices. The same
must hold when the agent dies while acp-tray is still writing a large prompt to it (the pipe to
its stdin full): a crash too, restarted like any other.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from tests.faults.faultkit import DEAF_AGENT, agent_pid, agent_table, kill_deaf_agents
from tests.support.config import history, titles, write_config
from tests.support.daemons import DaemonProcess, alive, cli, cli_env, cli_started, start
from tests.support.waiting import until


def test_sigkill_mid_turn_fails_the_prompt_restarts_the_agent_and_spares_the_other(
    daemons: list[DaemonProcess], tmp_path: Path
) -> None:
    write_config(agent_table("sa", tmp_path / "sa.log") + agent_table("sb", tmp_path / "sb.log"))
    daemon = start(daemons, "sa", "sb", verbose=True)
    victim, bystander = agent_pid(daemon, "sa"), agent_pid(daemon, "sb")
    assert victim is not None and bystander is not None and victim != bystander

    prompt = cli_started("prompt", "sa", "slow", "20")
    try:
        assert prompt.stdout is not None
        assert prompt.stdout.read(5) == "tick "  # the turn is running
        os.kill(victim, signal.SIGKILL)
        out, err = prompt.communicate(timeout=15)  # it must not wait for the 20 s turn
    finally:
        if prompt.poll() is None:
            prompt.kill()
            prompt.wait()
    assert prompt.returncode == 1, (out, err)
    assert "the prompt failed: interrupted: the agent closed the connection\n" in err, err
    assert "Traceback" not in err

    # acp-tray's own notice, in the history
    crashed = until(
        lambda: [r for r in history() if r["source"] == "acp-tray" and r["agent"] == "sa" and r["title"] == "Crashed"],
        what="the Crashed notice",
    )
    assert crashed[0]["severity"] == "warning" and "Restarting in" in crashed[0]["description"]
    assert crashed[0]["description"].startswith("exit code -9."), crashed[0]  # the signal, as the exit code
    assert not alive(victim)

    # restarted: a new process, connected, and a prompt works
    until(lambda: (pid := agent_pid(daemon, "sa")) is not None and pid != victim, what="a new sa process")
    after = cli("prompt", "sa", "say", "back", "again", timeout=40)
    assert after.returncode == 0, after.stderr
    assert after.stdout == "back again \n"

    # the other agent: same process, never crashed, still answers
    assert agent_pid(daemon, "sb") == bystander
    other = cli("prompt", "sb", "say", "unaffected")
    assert other.returncode == 0 and other.stdout == "unaffected \n", other.stderr
    assert not any(t.startswith("sb: ") and "rash" in t for t in titles())
    assert daemon.proc.poll() is None
    assert cli("quit").returncode == 0
    assert daemon.proc.wait(15) == 0


def test_sigkill_while_a_large_prompt_is_being_written_is_a_crash_and_the_agent_restarts(
    daemons: list[DaemonProcess], tmp_path: Path
) -> None:
    log = tmp_path / "deaf.log"
    write_config(agent_table("deaf", script=DEAF_AGENT, env={"DEAF_AGENT_LOG": str(log)}))
    daemon = start(daemons, "deaf", verbose=True)
    problems: list[str] = []
    try:
        victim = agent_pid(daemon, "deaf")
        assert victim is not None
        prompt = subprocess.Popen(  # 1 MB: more than the pipe holds, so the write is still pending
            [sys.executable, "-m", "acp_tray", "prompt", "deaf", *(["y" * 99_900] * 10)],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=cli_env(),
        )
        until(lambda: json.loads(cli("status", "--json").stdout)["agents"][0]["busy"] == 1, what="the turn")
        time.sleep(0.3)
        os.kill(victim, signal.SIGKILL)
        _, err = prompt.communicate(timeout=15)
        if prompt.returncode != 1 or "the prompt failed" not in err:
            problems.append(f"the prompt: exit {prompt.returncode}, {err.strip()!r}")
        try:
            until(lambda: "deaf: Crashed" in titles(), timeout=4, what="the Crashed notice")
        except AssertionError:
            problems.append(f"no Crashed notice; acp-tray's notices: {titles()}")
        try:
            until(lambda: agent_pid(daemon, "deaf") not in (None, victim), timeout=6, what="a new process")
        except AssertionError:
            (row,) = json.loads(cli("status", "--json").stdout)["agents"]
            problems.append(f"not restarted: {row['state']} ({row['detail']})")
    finally:
        daemon.proc.kill()
        daemon.proc.wait()
        kill_deaf_agents(log)
    assert not problems, problems
