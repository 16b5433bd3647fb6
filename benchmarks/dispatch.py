"""Native notification dispatch on a real dunst, against the peers measured in the same run.

    python benchmarks/dispatch.py [--count 2000] [--peer-count 200] [--agents 20] [--check]

Starts its own Xvfb + private session bus + dunst (with a `skip_display` rule, so dunst's
drawing does not set the pace) and measures:
1. notifications per second delivered to dunst by our freedesktop backend (through the
   notification chain, replies awaited) vs. plyer's Linux path (notify-send, no dbus-python)
   vs. raw `notify-send` processes; prints the ratios (target: >= 10x notify-send);
2. in-process time from a notice line arriving from an agent to our D-Bus `Notify` call,
   median and p99, with `--agents` agents sending at once (target: p99 < 5 ms), and our CPU
   time per notification (parse, route, history, D-Bus), against the CPU time of a bare
   dbus-fast `Notify` call (awaited, one at a time) measured in the same run (target: at most
   3x the bare call, the project's tracker's; the ratio is the figure to compare across runs on a
   noisy machine, as the load moves both).
With --check the exit status is 1 when a target is missed, and the missed targets are named.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import subprocess
import sys
import tempfile
import time
import warnings
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from acp.connection import Connection  # noqa: E402

from acp_tray.agents.client_handler import ClientHandler  # noqa: E402
from acp_tray.agents.transport import LineTransport  # noqa: E402
from acp_tray.app.compose import assemble  # noqa: E402
from acp_tray.notifiers.chain import NotifierChain  # noqa: E402
from acp_tray.notifiers.content import Notification  # noqa: E402
from acp_tray.notifiers.freedesktop import FreedesktopBackend  # noqa: E402
from acp_tray.prefs.model import Preferences  # noqa: E402
from acp_tray.presentation.router import Presentation  # noqa: E402
from acp_tray.state.history import HistoryWriter  # noqa: E402
from tests.desktop.session import HERE, DesktopSession  # noqa: E402
from tests.support.presentations import make_presentation  # noqa: E402


def presentation(group: int) -> Presentation:
    return make_presentation(group, f"notice {group}", agent="bench", description="body", timeout=1)  # type: ignore[no-any-return]


async def ours(count: int) -> float:
    backend = FreedesktopBackend(lambda group, what: None)
    chain = NotifierChain([backend])
    await chain.start()
    start = time.perf_counter()
    for group in range(count):
        # feed as fast as calls complete, within the backlog bound (polled: the chain has no "room again" event)
        while chain.backlog >= 128:  # noqa: ASYNC110
            await asyncio.sleep(0.0005)
        chain.present(presentation(group))
    await chain.drain()
    elapsed = time.perf_counter() - start
    assert chain.delivered["freedesktop"] == count, chain.delivered
    await chain.aclose()
    return count / elapsed


def notify_send(count: int) -> float:
    start = time.perf_counter()
    for i in range(count):
        subprocess.run(["notify-send", "-a", "bench", f"notify-send {i}", "body"], check=True)
    return count / (time.perf_counter() - start)


def plyer_path(count: int) -> float:
    from plyer import notification

    warnings.filterwarnings("ignore", message="The Python dbus package")  # expected: plyer's notify-send path
    start = time.perf_counter()
    for i in range(count):
        notification.notify(title=f"plyer {i}", message="body", app_name="bench", timeout=5)
    return count / (time.perf_counter() - start)


async def bare_notify_cpu(count: int) -> float:
    """CPU seconds per `Notify` through dbus-fast alone: no chain, no backend, no daemon."""
    from dbus_fast import Message, Variant
    from dbus_fast.aio import MessageBus

    bus = await MessageBus().connect()
    cpu0 = time.process_time()
    for i in range(count):
        body = ["bench", 0, "", f"bare {i}", "body", [], {"urgency": Variant("y", 1)}, 1000]
        message = Message(
            destination="org.freedesktop.Notifications",
            path="/org/freedesktop/Notifications",
            interface="org.freedesktop.Notifications",
            member="Notify",
            signature="susssasa{sv}i",
            body=body,
        )
        await bus.call(message)
    cpu = time.process_time() - cpu0
    bus.disconnect()
    return cpu / count


TARGET_CPU_RATIO = 3.0  # our CPU per notification, at most this times a bare dbus-fast Notify's
TARGET_P99_MS = 5.0
TARGET_NOTIFY_SEND_RATIO = 10.0

TICK = 0.05  # each agent sends one notice per 50 ms: 20 agents offer 400 notices/s

# The agents run in a process of their own, as real agents do, so that the CPU time measured is the
# daemon's alone (reading the pipes included). Each notice carries its send time (CLOCK_MONOTONIC:
# one clock for every process on Linux) in its title, after "@".
FEEDER = """
import json, os, sys, time
agents, per_agent, tick = int(sys.argv[1]), int(sys.argv[2]), float(sys.argv[3])
fds = [int(fd) for fd in sys.argv[4:]]
start = time.monotonic() + 0.2
for i in range(per_agent):
    for a, fd in enumerate(fds):
        due = start + i * tick + tick * a / agents  # each agent at its own phase within the tick
        pause = due - time.monotonic()
        if pause > 0:
            time.sleep(pause)
        update = {"sessionUpdate": "notice", "severity": "warning", "title": f"a{a}-n{i}@{time.monotonic():.6f}"}
        line = {"jsonrpc": "2.0", "method": "session/update", "params": {"sessionId": f"s{a}", "update": update}}
        os.write(fd, json.dumps(line).encode() + b"\\n")
"""


class Recording(FreedesktopBackend):
    """Our backend, noting how long after its sending each notice's Notify call leaves for the bus."""

    delays: list[float]

    async def notify(self, notification: Notification) -> None:
        sent = float(notification.presentation.title.rpartition("@")[2])
        self.delays.append((time.monotonic() - sent) * 1000)
        await super().notify(notification)


async def connect_agent(name: str, pipe: int, sink: Any) -> Connection:
    """Our end of one agent's stdout pipe, read by the same transport and handler as a real agent's."""
    loop = asyncio.get_running_loop()
    reader = asyncio.StreamReader()
    await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), os.fdopen(pipe, "rb", buffering=0))
    writer: Any = type("W", (), {"write": lambda self, d: None, "drain": staticmethod(lambda: asyncio.sleep(0))})()
    transport = LineTransport(reader, writer, on_drop=lambda reason, line: None)
    return Connection(ClientHandler(name, sink), transport)  # the caller keeps it: its tasks are only weakly held


async def latency(agents: int, per_agent: int) -> tuple[list[float], float, int]:
    backend = Recording(lambda group, what: None)
    backend.delays = []
    chain = NotifierChain([backend])
    await chain.start()
    prefs = Preferences.model_validate({"rate_limit": {"burst": 1000, "per": 0.001}, "coalesce": {"window": 0}})
    history = HistoryWriter(Path(os.environ["BENCH_TMP"]) / "history.jsonl")
    daemon = assemble(prefs, history=history, surfaces=[chain.present], status=lambda event: None)
    stop = asyncio.Event()
    runner = asyncio.create_task(daemon.run(stop))
    pipes = [os.pipe() for _ in range(agents)]
    connections = [
        await connect_agent(f"agent{a}", ours_end, daemon.core.queue.put_nowait)
        for a, (ours_end, _) in enumerate(pipes)
    ]
    theirs = [str(theirs_end) for _, theirs_end in pipes]
    feeder = await asyncio.create_subprocess_exec(
        sys.executable,
        "-c",
        FEEDER,
        str(agents),
        str(per_agent),
        str(TICK),
        *theirs,
        pass_fds=[int(fd) for fd in theirs],
    )
    cpu0 = time.process_time()  # the feeder starts sending 0.2 s after it starts
    for fd in theirs:
        os.close(int(fd))
    await feeder.wait()
    total = agents * per_agent
    deadline = time.monotonic() + 30
    while len(backend.delays) < total and time.monotonic() < deadline:  # noqa: ASYNC110 (the last lines in flight)
        await asyncio.sleep(0.01)
    await daemon.core.queue.join()
    await chain.drain()
    cpu = time.process_time() - cpu0
    stop.set()
    await runner
    await chain.aclose()
    for connection in connections:
        await connection.close()
    assert len(backend.delays) == total, f"{total - len(backend.delays)} notices never reached D-Bus"
    return backend.delays, cpu, total


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--count", type=int, default=1500)
    parser.add_argument("--peer-count", type=int, default=150)
    parser.add_argument("--agents", type=int, default=20)
    parser.add_argument("--per-agent", type=int, default=25)
    parser.add_argument("--check", action="store_true", help="exit 1 when a target is missed, naming it")
    args = parser.parse_args()

    def fresh() -> DesktopSession:
        """Each phase gets a fresh dunst: a long-lived one slows down as its queue grows."""
        return DesktopSession(HERE / "dunstrc-bench")

    with tempfile.TemporaryDirectory() as tmp:
        os.environ["BENCH_TMP"] = tmp
        with fresh() as desktop:
            os.environ.update(desktop.env)
            rate_ours = asyncio.run(ours(args.count))
        with fresh() as desktop:
            os.environ.update(desktop.env)
            rate_notify_send = notify_send(args.peer_count)
        with fresh() as desktop:
            os.environ.update(desktop.env)
            rate_plyer = plyer_path(args.peer_count)
        with fresh() as desktop:
            os.environ.update(desktop.env)
            delays, cpu, total = asyncio.run(latency(args.agents, args.per_agent))
        with fresh() as desktop:
            os.environ.update(desktop.env)
            bare = asyncio.run(bare_notify_cpu(args.agents * args.per_agent))
    delays.sort()
    p50 = statistics.median(delays)
    p99 = delays[max(0, int(len(delays) * 0.99) - 1)]
    print(
        f"notifications/s to dunst (skip_display): ours {rate_ours:,.0f} · plyer {rate_plyer:,.0f}"
        f" · notify-send {rate_notify_send:,.0f}"
    )
    print(
        f"ours / notify-send: {rate_ours / rate_notify_send:.1f}x (target >= {TARGET_NOTIFY_SEND_RATIO:g}x)"
        f" · ours / plyer: {rate_ours / rate_plyer:.1f}x"
    )
    print(
        f"arrival on the wire -> D-Bus Notify, {args.agents} agents, {total} notices: "
        f"median {p50:.2f} ms, p99 {p99:.2f} ms (target p99 < {TARGET_P99_MS:g} ms)"
    )
    ours_cpu = cpu / total
    print(
        f"CPU per notification (parse, route, history, D-Bus): ours {ours_cpu * 1e6:.0f} µs · a bare dbus-fast Notify"
        f" {bare * 1e6:.0f} µs · {ours_cpu / bare:.2f}x (target <= {TARGET_CPU_RATIO:g}x)"
    )
    results = [
        (
            f"ours >= {TARGET_NOTIFY_SEND_RATIO:g}x notify-send",
            rate_ours >= TARGET_NOTIFY_SEND_RATIO * rate_notify_send,
        ),
        (f"p99 < {TARGET_P99_MS:g} ms", p99 < TARGET_P99_MS),
        (f"CPU per notification <= {TARGET_CPU_RATIO:g}x bare", ours_cpu <= TARGET_CPU_RATIO * bare),
    ]
    print("targets: " + " · ".join(f"{name}: {'met' if ok else 'MISSED'}" for name, ok in results))
    missed = [name for name, ok in results if not ok]
    if missed:
        print("missed: " + "; ".join(missed))
    return 1 if args.check and missed else 0


if __name__ == "__main__":
    raise SystemExit(main())
