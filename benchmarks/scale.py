"""Arrival-to-presentation latency with 20 agents x 5 sessions at a steady rate, against one agent with one session.

    python benchmarks/scale.py [--quick] [--agents 20] [--sessions 5] [--rate 2] [--rounds 3]

An in-process daemon (src/acp_tray/app/compose.py: the same composition `acp-tray run` builds, with
the default preferences: rate limit burst 5 per 10 s, coalescing window 30 s; history to a temp
file) hosts real agent subprocesses (benchmarks/agents/stress_agent.py in steady mode, on the ACP
SDK's `Connection`, protocol 1). Its one surface records `time.monotonic()` when the daemon
presents a notice. Each agent sends notices on every session it has, at `--rate` notices a second
per session on an absolute schedule, the streams evenly phased; each notice carries its send time
(`time.monotonic()` taken in the agent just before `send_notification`; CLOCK_MONOTONIC is one
clock for every process on Linux) in its description.

What is measured, exactly: from the agent's send call to the moment the daemon hands the notice
to its presentation surfaces (agent-side SDK send and pipe, our LineTransport and the SDK's
dispatch, parsing, the event queue, routing with coalescing/DND/rate limit, the history write);
it stops before any D-Bus call. The default rate limit keeps nearly all of these notices from
becoming native notifications (they go to the tray list and the history): that changes what is
shown, not when the daemon presents it, and is what a person's daemon does under this load.

Sessions: the daemon opens each agent's default session at connect; the benchmark opens 4 more
per agent through the daemon's own API (`AgentHost.open_session`, what `acp-tray prompt --session
NAME` does), so each agent has 5 real ACP sessions (ids from its `session/new`) and sends on them.
Made-up session ids would measure the same path: `ClientHandler.on_session_update` does not check
that a session exists (it only routes reply text to known sessions), and a notice's session id is
only carried along (coalescing key, history, presentation); real ones cost nothing extra and rule
that question out.

Peer, in the same run: one more agent with only its default session, at the same per-session
rate, in the same daemon (the scale agents connected and idle meanwhile). Rounds alternate peer
and scale phases so that the machine's noise hits both alike. Printed: median and p99 of each,
and both ratios scale / peer (target < 1.5).

To tell the daemon's own stalls from the machine's (2 cores, shared): for each kind of phase it
also prints the daemon loop's lag (a task that sleeps 20 ms and notes the overshoot; it runs in both
kinds of phase alike), the garbage
collector's pauses in this process, and how busy the whole machine was (/proc/stat, all cores).
`--dump FILE` writes every sample (phase, agent, sent, presented) as JSON lines.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import gc
import json
import math
import os
import signal
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from acp_tray.app.compose import assemble  # noqa: E402
from acp_tray.events import AgentState, AgentStatus  # noqa: E402
from acp_tray.prefs.model import Preferences  # noqa: E402
from acp_tray.presentation.router import Presentation  # noqa: E402
from acp_tray.state.history import HistoryWriter  # noqa: E402
from tests.support.waiting import until_async  # noqa: E402

AGENT_SCRIPT = ROOT / "benchmarks" / "agents" / "stress_agent.py"
PEER = "peer"
LEAD = 0.5  # seconds between announcing a phase and its first send
GRACE = 10.0  # seconds to wait for stragglers after a phase's last send
LAG_TICK = 0.02


def machine_cpu() -> tuple[float, float]:
    """(busy, total) jiffies of all the machine's cores so far (/proc/stat)."""
    fields = [int(x) for x in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]]
    idle = fields[3] + fields[4]  # idle + iowait
    return sum(fields) - idle, sum(fields)


def pct(values: list[float], q: float) -> float:
    """Nearest-rank percentile."""
    ordered = sorted(values)
    return ordered[max(0, math.ceil(q * len(ordered)) - 1)]


def sends_per_stream(slot: int, streams: int, rate: float, duration: float) -> int:
    """How many notices one stream sends in a phase (the agent's own schedule, see stress_agent.py)."""
    period = 1.0 / rate
    offset = slot / streams * period
    return sum(1 for i in range(int(duration * rate) + 1) if offset + i * period < duration)


class Bench:
    def __init__(self, names: list[str], sessions: int, tmp: Path) -> None:
        self.names = names
        self.sessions = sessions
        self.tmp = tmp
        self.connected: set[str] = set()
        self.samples: list[tuple[str, str, float]] = []  # (agent, description, presented at)
        self.other_presented = 0
        self.lags: list[tuple[float, float]] = []  # (when, how late) of the loop monitor's 20 ms sleeps
        self.gc_pauses: list[tuple[float, float]] = []  # (when, seconds) of every collection here
        self._gc_started = 0.0
        gc.callbacks.append(self._gc)

    def _gc(self, phase: str, info: dict[str, int]) -> None:
        if phase == "start":
            self._gc_started = time.monotonic()
        else:
            self.gc_pauses.append((self._gc_started, time.monotonic() - self._gc_started))

    async def watch_loop(self) -> None:
        while True:
            before = time.monotonic()
            await asyncio.sleep(LAG_TICK)
            self.lags.append((before, time.monotonic() - before - LAG_TICK))

    def surface(self, presentation: Presentation) -> None:
        description = presentation.description
        if description is not None and description.startswith("sent="):
            self.samples.append((presentation.agent, description, time.monotonic()))
        else:
            self.other_presented += 1

    def status(self, event: AgentStatus) -> None:
        if event.state is AgentState.CONNECTED:
            self.connected.add(event.agent)
        else:
            self.connected.discard(event.agent)
            if event.state in (AgentState.FAILED, AgentState.EXITED):
                print(f"warning: agent {event.agent} {event.state.value}: {event.detail}", file=sys.stderr)

    def prefs(self) -> Preferences:
        agents = {
            name: {
                "command": [sys.executable, str(AGENT_SCRIPT)],
                "cwd": str(self.tmp),
                "protocol": 1,
                "env": {"STRESS_MODE": "steady", "STRESS_NAME": name, "STEADY_DIR": str(self.tmp)},
            }
            for name in self.names
        }
        return Preferences.model_validate({"agents": agents})

    def pid(self, name: str) -> int:
        return int((self.tmp / f"{name}.pid").read_text())

    async def phase(self, agents: list[str], rate: float, duration: float) -> dict[str, Any]:
        """One phase: `agents` send on all their sessions."""
        streams = len(agents) * (1 if agents == [PEER] else self.sessions)
        per_agent = streams // len(agents)
        slot = {name: i * per_agent for i, name in enumerate(agents)}
        start = time.monotonic() + LEAD
        phase = {"start": start, "duration": duration, "rate": rate, "streams": streams, "slot": slot}
        (self.tmp / "phase.json.new").write_text(json.dumps(phase), encoding="utf-8")
        (self.tmp / "phase.json.new").replace(self.tmp / "phase.json")
        expected = sum(sends_per_stream(s, streams, rate, duration) for s in range(streams))
        first = len(self.samples)
        cpu0 = time.process_time()
        busy0, total0 = machine_cpu()
        for name in agents:
            os.kill(self.pid(name), signal.SIGUSR1)
        await asyncio.sleep(LEAD + duration)
        with contextlib.suppress(AssertionError):  # what has not come by then is counted as lost
            await until_async(lambda: len(self.samples) - first >= expected, GRACE, "the samples")
        cpu = time.process_time() - cpu0
        busy1, total1 = machine_cpu()
        end = time.monotonic()
        await asyncio.sleep(0.5)  # nothing more should come; anything that does is counted
        return {
            "expected": expected,
            "received": len(self.samples) - first,
            "cpu": cpu,
            "window": (start, end),
            "machine_busy": (busy1 - busy0) / max(1, total1 - total0),
        }


async def run(args: argparse.Namespace, tmp: Path) -> dict[str, Any]:
    scale_agents = [f"a{i:02d}" for i in range(args.agents)]
    bench = Bench([*scale_agents, PEER], args.sessions, tmp)
    history = HistoryWriter(tmp / "history.jsonl")
    daemon = assemble(bench.prefs(), history=history, surfaces=[bench.surface], status=bench.status)
    stop = asyncio.Event()
    runner = asyncio.create_task(daemon.run(stop))
    out: dict[str, Any] = {"phases": []}
    try:
        started = time.monotonic()
        await until_async(lambda: len(bench.connected) == len(bench.names), 180, "every agent to connect")
        out["startup"] = time.monotonic() - started
        opened = await asyncio.gather(
            *(
                daemon.core.fleet.hosts[name].open_session(f"s{k}")
                for name in scale_agents
                for k in range(2, args.sessions + 1)
            )
        )
        out["sessions"] = len(opened) + len(bench.names)  # + each agent's default session
        await until_async(
            lambda: all((tmp / f"{name}.pid").exists() for name in bench.names), 30, "the agents' pid files"
        )
        await asyncio.sleep(1.0)  # let the start-up work settle
        monitor = asyncio.create_task(bench.watch_loop())
        for _ in range(args.rounds):
            for label, agents, duration in (("peer", [PEER], args.peer_seconds), ("scale", scale_agents, args.seconds)):
                first = len(bench.samples)
                phase = await bench.phase(agents, args.rate, duration)
                samples = [
                    (agent, float(description.removeprefix("sent=")), at)
                    for agent, description, at in bench.samples[first:]
                ]
                start, end = phase["window"]
                phase.update(
                    label=label,
                    lags=[lag for when, lag in bench.lags if start <= when <= end],
                    gc=[pause for when, pause in bench.gc_pauses if start <= when <= end],
                )
                out["phases"].append(phase)
                out.setdefault(label, []).extend((at - sent) * 1000 for _, sent, at in samples)
                out.setdefault("dump", []).extend((label, agent, sent, at) for agent, sent, at in samples)
        monitor.cancel()
        out["other_presented"] = bench.other_presented
        sizes = await asyncio.to_thread(lambda: [p.stat().st_size for p in tmp.glob("history.jsonl*")])
        out["history_bytes"] = sum(sizes)
    finally:
        stop.set()
        await asyncio.wait_for(runner, 30)
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="4 agents, one short round: proves the benchmark runs")
    parser.add_argument("--agents", type=int, default=None, help="agents (default 20, quick 4)")
    parser.add_argument("--sessions", type=int, default=5, help="sessions per agent (default 5)")
    parser.add_argument("--rate", type=float, default=2.0, help="notices a second per session (default 2)")
    parser.add_argument("--rounds", type=int, default=None, help="peer + scale rounds (default 3, quick 1)")
    parser.add_argument("--seconds", type=float, default=None, help="each scale phase (default 15, quick 3)")
    parser.add_argument("--peer-seconds", type=float, default=None, help="each peer phase (default 40, quick 4)")
    parser.add_argument("--dump", type=Path, default=None, help="write every sample as a JSON line here")
    args = parser.parse_args()
    args.agents = args.agents or (4 if args.quick else 20)
    args.rounds = args.rounds or (1 if args.quick else 3)
    args.seconds = args.seconds or (3.0 if args.quick else 15.0)
    args.peer_seconds = args.peer_seconds or (4.0 if args.quick else 40.0)
    command = " ".join(["python benchmarks/scale.py", *sys.argv[1:]])
    signal.signal(signal.SIGTERM, lambda signum, frame: sys.exit(128 + signum))  # clean up on the way out

    with tempfile.TemporaryDirectory(prefix="acp-scale-") as tmp:
        out = asyncio.run(run(args, Path(tmp)))
    if args.dump is not None:
        with args.dump.open("w", encoding="utf-8") as handle:
            for label, agent, sent, at in out["dump"]:
                handle.write(json.dumps({"phase": label, "agent": agent, "sent": sent, "presented": at}) + "\n")

    total_rate = args.agents * args.sessions * args.rate
    print(
        f"scale: {args.agents} agents x {args.sessions} sessions at {args.rate:g} notices/s per session"
        f" ({total_rate:g}/s in all) vs. 1 agent x 1 session at the same rate · {args.rounds} interleaved rounds"
        f" · reproduce: {command}"
    )
    print(
        f"  {out['sessions']} ACP sessions opened by session/new (the default ones at connect, the rest through"
        f" AgentHost.open_session) · every agent connected {out['startup']:.1f} s after the daemon started"
    )
    print(
        "  measured: the agent's send call (time.monotonic()) -> the daemon presenting the notice to its surfaces"
        " (parsed, routed, in the history; before any D-Bus call); default preferences, so the rate limit keeps"
        " almost all of them from native notification, which does not change when they are presented"
    )
    ok = True
    stats = {}
    for label in ("peer", "scale"):
        phases = [p for p in out["phases"] if p["label"] == label]
        expected = sum(p["expected"] for p in phases)
        received = sum(p["received"] for p in phases)
        delays = out.get(label, [])
        ok &= received == expected
        cpu = sum(p["cpu"] for p in phases)
        wall = sum(p["window"][1] - p["window"][0] for p in phases)
        stats[label] = (statistics.median(delays), pct(delays, 0.99))
        print(
            f"  {label:<5} {received:>6,} of {expected:,} presented · median {stats[label][0]:6.2f} ms · p99"
            f" {stats[label][1]:6.2f} ms · max {max(delays):7.2f} ms · CPU of this process (the daemon's loop):"
            f" {cpu / wall * 100:.1f}% of a core, {cpu / max(received, 1) * 1e6:.0f} µs per notice"
        )
        lags = [lag * 1000 for p in phases for lag in p["lags"]]
        pauses = [pause * 1000 for p in phases for pause in p["gc"]]
        busy = [p["machine_busy"] for p in phases]
        print(
            f"        the daemon loop's lag: p99 {pct(lags, 0.99) if lags else 0:.2f} ms,"
            f" max {max(lags, default=0):.2f} ms · GC here: {len(pauses)} collections,"
            f" max {max(pauses, default=0):.2f} ms · the whole machine"
            f" busy {min(busy) * 100:.0f}-{max(busy) * 100:.0f}% of {os.cpu_count()} cores"
        )
    median_ratio = stats["scale"][0] / stats["peer"][0]
    p99_ratio = stats["scale"][1] / stats["peer"][1]
    print(f"  scale / peer: median {median_ratio:.2f}x · p99 {p99_ratio:.2f}x (target < 1.5 for both)")
    print(
        f"  also presented: {out['other_presented']} of acp-tray's own (rate-limit overflow summaries)"
        f" · history {out['history_bytes'] / 1024 / 1024:.2f} MB"
    )
    if not ok:
        print("FAIL: notices went missing", file=sys.stderr)
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
