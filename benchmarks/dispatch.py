"""Native notification dispatch on a real dunst, against the peers measured in the same run.

    python benchmarks/dispatch.py [--count 2000] [--peer-count 200] [--agents 20]

Starts its own Xvfb + private session bus + dunst (with a `skip_display` rule, so dunst's
drawing does not set the pace) and measures:
1. notifications per second delivered to dunst by our freedesktop backend (through the
   notification chain, replies awaited) vs. plyer's Linux path (notify-send, no dbus-python)
   vs. raw `notify-send` processes; prints the ratios (target: >= 10x notify-send);
2. in-process time from a notice line arriving from an agent to our D-Bus `Notify` call,
   median and p99, with `--agents` agents sending at once (target: p99 < 5 ms), and our CPU
   time per notification (parse, route, history, D-Bus), against the CPU time of a bare
   dbus-fast `Notify` call (awaited, one at a time) measured in the same run (target: at most
   400 µs; as a ratio, the figure to compare across runs on a noisy machine).
"""

from __future__ import annotations

import argparse
import asyncio
import json
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


TICK = 0.05  # each agent sends one notice per 50 ms: 20 agents offer 400 notices/s


class Recording(FreedesktopBackend):
    """Our backend, noting when each Notify call leaves for the bus."""

    sent_at: dict[str, float]

    async def notify(self, notification: Notification) -> None:
        self.sent_at[notification.presentation.title] = time.perf_counter()
        await super().notify(notification)


async def latency(agents: int, per_agent: int) -> tuple[list[float], float, int]:
    backend = Recording(lambda group, what: None)
    backend.sent_at = {}
    chain = NotifierChain([backend])
    await chain.start()
    prefs = Preferences.model_validate({"rate_limit": {"burst": 1000, "per": 0.001}, "coalesce": {"window": 0}})
    history = HistoryWriter(Path(os.environ["BENCH_TMP"]) / "history.jsonl")
    daemon = assemble(prefs, history=history, surfaces=[chain.present], status=lambda event: None)
    stop = asyncio.Event()
    runner = asyncio.create_task(daemon.run(stop))
    arrived: dict[str, float] = {}
    readers = []
    for a in range(agents):
        reader = asyncio.StreamReader()
        writer: Any = type("W", (), {"write": lambda self, d: None, "drain": staticmethod(lambda: asyncio.sleep(0))})()
        transport = LineTransport(reader, writer, on_drop=lambda reason, line: None)
        Connection(ClientHandler(f"agent{a}", daemon.core.queue.put_nowait), transport)
        readers.append(reader)
    cpu0 = time.process_time()

    async def agent(a: int, reader: asyncio.StreamReader) -> None:
        """One agent at a steady rate: a notice every TICK, at its own phase within the tick."""
        await asyncio.sleep(TICK * a / agents)
        for i in range(per_agent):
            title = f"a{a}-n{i}"
            line = {
                "jsonrpc": "2.0",
                "method": "session/update",
                "params": {
                    "sessionId": f"s{a}",
                    "update": {"sessionUpdate": "notice", "severity": "warning", "title": title},
                },
            }
            arrived[title] = time.perf_counter()
            reader.feed_data(json.dumps(line).encode() + b"\n")
            await asyncio.sleep(TICK)

    await asyncio.gather(*(agent(a, reader) for a, reader in enumerate(readers)))
    await daemon.core.queue.join()
    await chain.drain()
    cpu = time.process_time() - cpu0
    stop.set()
    await runner
    await chain.aclose()
    delays = [(backend.sent_at[title] - arrived[title]) * 1000 for title in arrived if title in backend.sent_at]
    assert len(delays) == len(arrived), f"{len(arrived) - len(delays)} notices never reached D-Bus"
    return delays, cpu, agents * per_agent


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--count", type=int, default=1500)
    parser.add_argument("--peer-count", type=int, default=150)
    parser.add_argument("--agents", type=int, default=20)
    parser.add_argument("--per-agent", type=int, default=25)
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
        f"ours / notify-send: {rate_ours / rate_notify_send:.1f}x (target >= 10x)"
        f" · ours / plyer: {rate_ours / rate_plyer:.1f}x"
    )
    print(
        f"arrival on the wire -> D-Bus Notify, {args.agents} agents, {total} notices: "
        f"median {p50:.2f} ms, p99 {p99:.2f} ms (target p99 < 5 ms)"
    )
    ours_cpu = cpu / total
    print(
        f"our CPU time per notification (parse, route, history, D-Bus): {ours_cpu * 1e6:.0f} µs (target <= 400)"
        f" · a bare dbus-fast Notify: {bare * 1e6:.0f} µs · ours / bare: {ours_cpu / bare:.2f}x"
    )


if __name__ == "__main__":
    main()
