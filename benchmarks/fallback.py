"""The cost of the ACP 1 fallback: an agent offered 2 that answers 1 is started again offering 1.

    python benchmarks/fallback.py [--rounds 5] [--agent tree|codex-acp|NAME=COMMAND...]

For each agent, alternating rounds of two runs of `AgentHost` under the supervisor, each from a
fresh version memory:
  direct    offered 1 (`protocol = 1`): one start
  fallback  offered 2 (`protocol = "auto"`): a start, `initialize`, the first process tree
            stopped, a second start offering 1
Each run is timed from its start to the end of the last handshake: the agent connected, or it
asked for a sign-in (codex-acp without an API key does that at `session/new`: the same point).
Printed per agent: the median of each and the extra time the fallback costs (fallback - direct);
the peer is the direct start, measured in the same run.

Agents: `tree` is tests/agents/tree_agent.py (a launcher whose child ignores stdin EOF and
SIGTERM, like codex-acp's node wrapper around its native binary); `codex-acp` is the pinned real
one from `.ci/real-agents`.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from acp_tray.agents.host import AgentHost, AgentSpec  # noqa: E402
from acp_tray.agents.host_options import HostOptions  # noqa: E402
from acp_tray.agents.supervisor import supervise  # noqa: E402
from acp_tray.backoff import BackoffPolicy  # noqa: E402
from acp_tray.events import AgentState, AgentStatus, AgentUnusable, Event  # noqa: E402


def command_of(agent: str) -> list[str]:
    if agent == "tree":
        return [sys.executable, str(ROOT / "tests" / "agents" / "tree_agent.py"), "wrap"]
    if "=" in agent:
        return agent.split("=", 1)[1].split()
    from tests.real_agents import npm_bin

    return npm_bin(agent)


async def one_run(command: list[str], protocol: str | int, cwd: Path) -> float:
    done = asyncio.Event()

    def sink(event: Event) -> None:
        if isinstance(event, AgentUnusable) or (isinstance(event, AgentStatus) and event.state is AgentState.CONNECTED):
            done.set()

    host = AgentHost("bench", AgentSpec(command, cwd=cwd), sink, HostOptions(protocol=protocol))
    began = time.monotonic()
    task = asyncio.create_task(supervise(host, sink, BackoffPolicy(give_up_after=1)))
    try:
        async with asyncio.timeout(60):
            await done.wait()
        return time.monotonic() - began
    finally:
        task.cancel()
        await asyncio.gather(task, return_exceptions=True)


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--agent", action="append", help="tree, codex-acp, or NAME=COMMAND (default: tree)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as cwd:
        for agent in args.agent or ["tree"]:
            command = command_of(agent)
            times: dict[str, list[float]] = {"direct": [], "fallback": []}
            for _ in range(args.rounds):
                times["direct"].append(await one_run(command, 1, Path(cwd)))
                times["fallback"].append(await one_run(command, "auto", Path(cwd)))
            direct, fallback = (statistics.median(times[k]) for k in ("direct", "fallback"))
            print(
                f"{agent}: direct {direct:.3f} s, fallback {fallback:.3f} s (median of {args.rounds}); "
                f"the fallback costs {fallback - direct:+.3f} s, {fallback / direct:.2f} x a direct start"
            )


if __name__ == "__main__":
    asyncio.run(main())
