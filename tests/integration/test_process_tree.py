"""Agents that are process trees (a launcher and the real agent under it): every stop ends the
whole tree, and the end of the connection, not only the launcher's exit, ends the agent.

`tests/agents/tree_agent.py` is the launcher; its child speaks ACP and ignores stdin EOF and
SIGTERM, as codex-acp's native binary under its node wrapper ignores EOF.
"""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from acp_tray.agents.host import AgentHost
from acp_tray.agents.host_options import HostOptions
from acp_tray.agents.process_tree import AgentProcess
from acp_tray.agents.supervisor import supervise
from acp_tray.backoff import BackoffPolicy
from acp_tray.events import AgentCrashed, AgentState, AgentStatus
from acp_tray.files import paths
from tests.support.agents import TREE_AGENT
from tests.support.daemons import DaemonProcess, alive, cli
from tests.support.event_log import EventLog
from tests.support.process_trees import kill_left, living, started, tree, tree_table
from tests.support.waiting import until, until_async


async def test_a_stop_ends_the_grandchild_that_ignores_eof_and_sigterm(tmp_path: Path) -> None:
    spec, pids = tree(tmp_path, "wrap")
    log = EventLog()
    host = AgentHost("tree", spec, log, HostOptions(protocol=1))
    task = asyncio.create_task(host.run())
    try:
        await log.wait_for(lambda: host.connected.is_set() or task.done(), 30)
        assert host.connected.is_set()
        assert sorted(started(pids).values()) == ["child", "wrap"] and len(living(pids)) == 2
        task.cancel()
        await asyncio.gather(task, return_exceptions=True)
        assert [e.state for e in log.of(AgentStatus)][-1] is AgentState.STOPPED
        assert living(pids) == []  # the child ignored EOF and SIGTERM: it got SIGKILL
    finally:
        task.cancel()
        kill_left(pids)


def supervised(host: AgentHost, log: EventLog) -> asyncio.Task[None]:
    return asyncio.create_task(supervise(host, log, BackoffPolicy(initial=0.05, give_up_after=2)))


async def test_the_v1_fallback_ends_the_first_tree(tmp_path: Path) -> None:
    spec, pids = tree(tmp_path, "wrap")  # session_agent answers 1 to an offer of 2: a fresh start
    log = EventLog()
    host = AgentHost("tree", spec, log)  # protocol "auto"
    task = supervised(host, log)
    try:
        await log.wait_for(lambda: host.connected.is_set() or task.done(), 30)
        assert host.connected.is_set() and int(host.version) == 1
        assert sorted(started(pids).values()) == ["child", "child", "wrap", "wrap"]  # two trees
        await until_async(lambda: len(living(pids)) == 2)  # only the second one (the first goes meanwhile)
        task.cancel()
        await asyncio.gather(task, return_exceptions=True)
        assert {pid: started(pids)[pid] for pid in living(pids)} == {}, [str(e) for e in log.events]
    finally:
        task.cancel()
        kill_left(pids)


async def test_a_launcher_that_forks_and_exits_is_an_exit_and_its_orphan_goes(tmp_path: Path) -> None:
    spec, pids = tree(tmp_path, "fork")
    log = EventLog()
    host = AgentHost("tree", spec, log, HostOptions(protocol=1))
    task = supervised(host, log)
    try:
        # the orphan keeps the pipes and answers, but the agent acp-tray started is gone: not
        # "connected" for ever; each run's orphan is ended before the next run
        await log.wait_for(lambda: len(log.of(AgentCrashed)) >= 2 or task.done(), 30)
        exits = [e.detail for e in log.of(AgentStatus) if e.state is AgentState.EXITED]
        assert exits and exits[0].startswith("exit code 0")
        await until_async(lambda: len(living(pids)) <= 2)  # at most the current run's launcher and child
        children = [pid for pid, role in started(pids).items() if role == "child"]
        assert len(children) >= 2 and not alive(children[0])
        task.cancel()
        await asyncio.gather(task, return_exceptions=True)
        assert living(pids) == []
    finally:
        task.cancel()
        kill_left(pids)


def test_restart_remove_and_quit_leave_no_process_of_any_tree(tmp_path: Path, daemons: list[DaemonProcess]) -> None:
    """Through the daemon, as a person runs it; each agent starts with the v1 fallback (offered 2)."""
    a, b = tmp_path / "a", tmp_path / "b"
    a.mkdir()
    b.mkdir()
    config = paths.config_file()
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text('notifier = "console"\n' + tree_table("a", a) + tree_table("b", b), encoding="utf-8")
    daemon = DaemonProcess("run", "--headless", "-v")
    daemons.append(daemon)
    try:
        daemon.wait_for_lines("  a  connected", "  b  connected")
        assert len(started(a)) == 4
        until(lambda: len(living(a)) == 2, what="the fallback's first tree to go")
        first = set(living(a))
        assert cli("agents", "restart", "a").returncode == 0
        until(lambda: len(started(a)) == 6 and len(living(a)) == 2 and not first & set(living(a)), what="a restart")
        removed = cli("agents", "remove", "b")
        assert removed.returncode == 0, removed.stderr
        until(lambda: living(b) == [], what="b's tree to go")
        assert cli("quit").returncode == 0
        assert daemon.proc.wait(20) == 0
        assert living(a) == []
        stderr = daemon.stderr_text()
        assert "Traceback" not in stderr and "Event loop is closed" not in stderr, stderr
    finally:
        kill_left(a)
        kill_left(b)


async def test_a_stop_cancelled_on_the_way_still_leaves_no_process(tmp_path: Path) -> None:
    """As when the daemon stops waiting for a slow agent at quit and asyncio cancels what is left."""
    spec, pids = tree(tmp_path, "wrap")
    agent = await AgentProcess.start(spec.command, env={**os.environ, **spec.env}, cwd=tmp_path, limit=2**16)
    try:
        await until_async(lambda: len(living(pids)) == 2)
        stopping = asyncio.create_task(agent.stop())
        await asyncio.sleep(0.2)  # in its grace: the child ignores EOF
        stopping.cancel()
        await asyncio.gather(stopping, return_exceptions=True)
        await until_async(lambda: living(pids) == [])
    finally:
        kill_left(pids)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="found through /proc")
def test_agents_left_running_by_a_killed_daemon_are_ended_by_the_next_one(
    tmp_path: Path, daemons: list[DaemonProcess]
) -> None:
    """Its own process group keeps an agent's tree alive when the daemon is SIGKILLed (an OOM kill):
    the next daemon ends it, and nothing else of this user's (a bystander started just before)."""
    pids = tmp_path / "pids"
    pids.mkdir()
    config = tmp_path / "config.toml"
    command = json.dumps([sys.executable, str(TREE_AGENT), "wrap"])
    config.write_text(
        f"[agents.tree]\ncommand = {command}\nprotocol = 1\nenv = {{ TREE_AGENT_PIDS = {json.dumps(str(pids))} }}\n",
        encoding="utf-8",
    )
    bystander = subprocess.Popen(["sleep", "120"])
    try:
        first = DaemonProcess("run", "--headless", "--config", str(config))
        daemons.append(first)
        first.wait_for_line("tree  connected")
        tree = sorted(living(pids))
        assert len(tree) == 2  # the launcher and its child, which ignores EOF and SIGTERM
        first.proc.kill()
        first.proc.wait()
        time.sleep(1.0)
        assert sorted(living(pids)) == tree  # they outlived their daemon

        second = DaemonProcess("run", "--headless", "--config", str(config))
        daemons.append(second)
        second.wait_for_stderr("ended 2 agent processes left running by a daemon that did not stop cleanly")
        second.wait_for_line("tree  connected")
        until(lambda: not set(tree) & set(living(pids)), what="the old tree to be gone")
        assert len(living(pids)) == 2  # the new daemon's own tree runs
        assert bystander.poll() is None
        assert second.stop() == 0
        assert not paths.agents_run_file().exists()  # a clean stop leaves nothing for the next one
    finally:
        bystander.kill()
        kill_left(pids)
