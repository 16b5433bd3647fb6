"""Fault: an agent stops reading its stdin after the handshake but stays alive.

`deaf_agent.py` answers `initialize` and `session/new`, then never reads again. Prompts sent to it
with `--no-wait` (about 1 MB each, 50 MB in all) fill the pipe to it. The daemon must not block
on that pipe: `acp-tray status` answers at once, the other agent's notices are presented, and the
daemon's memory grows with what the person queued, not more. Cancelling, restarting the agent
and quitting the daemon must work too.
"""

from __future__ import annotations

import fcntl
import json
import subprocess
import sys
import termios
import time
from pathlib import Path

from acp_tray.control.client import request
from tests.faults.faultkit import DEAF_AGENT, agent_pid, agent_pids, agent_table, kill_deaf_agents, logged_pids
from tests.support.config import history, write_config
from tests.support.daemons import DaemonProcess, alive, cli, cli_env, rss_kib, start
from tests.support.waiting import until

PROMPTS = 50
PROMPT_CHARS = 999_000  # a control request line is at most 1 MiB (control/wire.py MAX_LINE)
CLI_PROMPTS = 3  # sent with `acp-tray prompt --no-wait`, as a person would; the rest over the same socket
ARG_CHARS = 99_900  # one argv string is at most 128 KiB on Linux: a 1 MB prompt is ten words


def pipe_fill(pid: int) -> tuple[int, int]:
    """(bytes waiting in the pipe to `pid`'s stdin, the pipe's capacity)."""
    with open(f"/proc/{pid}/fd/0", "rb", buffering=0) as pipe:  # the same pipe, another reader: nothing read
        waiting = int.from_bytes(fcntl.ioctl(pipe.fileno(), termios.FIONREAD, b"\0\0\0\0"), sys.byteorder)
        return waiting, fcntl.fcntl(pipe.fileno(), fcntl.F_GETPIPE_SZ)


def deaf_config(tmp_path: Path, *others: str) -> Path:
    log = tmp_path / "deaf.log"
    write_config(agent_table("deaf", script=DEAF_AGENT, env={"DEAF_AGENT_LOG": str(log)}) + "".join(others))
    return log


def test_an_agent_that_stops_reading_does_not_block_the_daemon(daemons: list[DaemonProcess], tmp_path: Path) -> None:
    log = deaf_config(tmp_path, agent_table("sa", tmp_path / "sa.log"))
    daemon = start(daemons, "deaf", "sa", verbose=True)
    try:
        deaf = agent_pid(daemon, "deaf")
        assert deaf is not None
        assert cli("prompt", "sa", "say", "warm").returncode == 0  # every code path loaded before measuring
        time.sleep(0.3)
        rss_before = rss_kib(daemon.proc.pid)

        sent = 0
        slowest = 0.0
        for n in range(PROMPTS):
            began = time.monotonic()
            if n < CLI_PROMPTS:
                words = [f"{n}"] + [chr(97 + i) * ARG_CHARS for i in range(10)]
                queued = cli("prompt", "deaf", "--no-wait", *words)
                assert queued.returncode == 0 and "queued as prompt" in queued.stdout, queued.stderr
                sent += len(" ".join(words))
            else:
                text = f"{n} " + "x" * PROMPT_CHARS
                request("prompt", {"agent": "deaf", "text": text, "wait": False}, timeout=10)
                sent += len(text)
            slowest = max(slowest, time.monotonic() - began)
        assert slowest < 5, f"queueing a prompt took {slowest:.1f} s"
        waiting, capacity = pipe_fill(deaf)
        assert waiting == capacity, (waiting, capacity)  # the pipe to the agent is full

        # the daemon still answers at once
        began = time.monotonic()
        status = cli("status", "--json")
        took = time.monotonic() - began
        assert status.returncode == 0 and took < 3, (took, status.stderr)
        rows = {row["name"]: row for row in json.loads(status.stdout)["agents"]}
        assert (rows["deaf"]["busy"], rows["deaf"]["queued"]) == (1, PROMPTS - 1)
        assert rows["sa"]["state"] == "connected"

        # the other agent's notices are presented (the console) and recorded
        said = cli("prompt", "sa", "notice", "still presented")
        assert said.returncode == 0, said.stderr
        daemon.wait_for_line("sa  WARNING  still presented", timeout=10)
        (record,) = until(lambda: [r for r in history() if r["title"] == "still presented"], what="the record")
        assert record["notified"] is True
        assert cli("prompt", "sa", "say", "and", "answers").stdout == "and answers \n"

        # memory: the queued prompts are the person's own text and are kept until their turn; the
        # bound allows that once (the text is ASCII: one byte a character in a str) plus a quarter
        # for allocator slack and 16 MiB for everything else. A second copy of each prompt (the
        # request bytes kept beside the text, or each prompt encoded ahead into the unbounded send
        # queue) would be at least twice the text and fails it. Measured here: ~1.08 x.
        growth_mib = (rss_kib(daemon.proc.pid) - rss_before) / 1024
        sent_mib = sent / 2**20
        assert growth_mib < sent_mib * 1.25 + 16, f"RSS grew {growth_mib:.1f} MiB for {sent_mib:.1f} MiB queued"

        received = [json.loads(line)["method"] for line in log.read_text().splitlines()]
        assert received == ["initialize", "session/new", "deaf"]  # it never read a prompt
        assert alive(deaf) and daemon.proc.poll() is None
    finally:
        daemon.proc.kill()
        daemon.proc.wait()
        kill_deaf_agents(log)


def all_done_within(commands: tuple[list[str], ...], seconds: float, started: list[subprocess.Popen[str]]) -> list[str]:
    """`acp-tray ARGS` for each of `commands`, all at once (added to `started`): the ones still
    waiting after `seconds`, said as problems."""
    for args in commands:
        command = [sys.executable, "-m", "acp_tray", *args]
        started.append(
            subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=cli_env())
        )
    problems = []
    deadline = time.monotonic() + seconds
    for args, process in zip(commands, started[-len(commands) :], strict=True):
        try:
            process.wait(max(0.1, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            problems.append(f"`acp-tray {' '.join(args)}` still waiting after {seconds:g} s")
    return problems


def test_an_agent_that_stops_reading_can_be_cancelled_restarted_and_quit(
    daemons: list[DaemonProcess], tmp_path: Path
) -> None:
    log = deaf_config(tmp_path)
    daemon = start(daemons, "deaf", verbose=True)
    waiting: list[subprocess.Popen[str]] = []
    problems: list[str] = []
    try:
        first = agent_pid(daemon, "deaf")
        assert first is not None
        for n in range(2):
            request("prompt", {"agent": "deaf", "text": f"{n} " + "x" * PROMPT_CHARS, "wait": False}, timeout=10)
        until(lambda: pipe_fill(first)[0] == pipe_fill(first)[1], what="the pipe to fill")

        # cancel the running turn, and queue a prompt in a new session: both at once, 5 s for both
        commands = (["cancel", "deaf"], ["prompt", "deaf", "--session", "other", "--no-wait", "hello"])
        problems += all_done_within(commands, 5.0, waiting)

        # restart it: the old process must go
        assert cli("agents", "restart", "deaf").returncode == 0
        try:
            until(lambda: not alive(first), timeout=6, what="the old agent to end")
        except AssertionError:
            problems.append(f"`agents restart`: the old agent {first} is still running after 6 s")
        until(lambda: set(agent_pids(daemon, "deaf")) - {first}, timeout=10, what="the new agent")

        # quit: the daemon and every agent it started must be gone
        assert cli("quit").returncode == 0
        try:
            daemon.proc.wait(10)
        except subprocess.TimeoutExpired:
            problems.append("`acp-tray quit`: the daemon is still running after 10 s")
        left = sorted(pid for pid in logged_pids(log) if alive(pid))
        if left:
            problems.append(f"agent processes left running: {left}")
    finally:
        for process in waiting:
            if process.poll() is None:
                process.kill()
            process.communicate()
        if daemon.proc.poll() is None:
            daemon.proc.kill()
            daemon.proc.wait()
        kill_deaf_agents(log)
    assert not problems, problems
