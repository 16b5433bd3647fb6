"""A small ACP v1 agent for the stress benchmarks, on the SDK's `Connection`: a real subprocess over stdio.

It answers `initialize` (advertising nothing) and `session/new` (ids "NAME-1", "NAME-2", ...), and
in one of two modes (`STRESS_MODE`):

flood   On `session/prompt` it sends `FLOOD_COUNT` (default 100000) notices as fast as it can, one
        `send_notification` awaited after another (the SDK's own send path, with the pipe's
        backpressure), titled "flood N" with a short description. It streams the reply DURING the
        flood: one `agent_message_chunk` after every `FLOOD_COUNT / FLOOD_CHUNKS` notices ("part
        K/10 "), then a last one after it ("flood done: ..."), and ends the turn with end_turn.
        Before answering it writes {"count", "start", "end"} (wall clock, time.time()) as JSON to
        `FLOOD_STATS` when set.

steady  At startup it writes its pid to `STEADY_DIR/NAME.pid`. On SIGUSR1 it reads
        `STEADY_DIR/phase.json` ({"start": CLOCK_MONOTONIC seconds, "duration": S, "rate": R,
        "streams": TOTAL, "slot": {NAME: FIRST_SLOT}}) and, on every session it created, sends
        R notices a second from `start` for `duration` seconds on an absolute schedule (no
        drift). Stream k of this agent (session k) has global slot FIRST_SLOT + k; its sends
        are offset by slot / TOTAL of the period, so all the agents together send evenly spread.
        Each notice carries its send time (time.monotonic(), taken just before the send; on Linux
        CLOCK_MONOTONIC is one clock for every process) in its description ("sent=SECONDS") and
        in `_meta.sentAt`.

paced   A prompt "KIND COUNT RATE" (KIND: `usage` or `notices`) is answered after sending COUNT
        updates of that kind at RATE a second on an absolute schedule: `usage_update`s (the
        context growing by 10 tokens, the cost by 0.0001 USD each, every tenth with claude's
        `_claude/rateLimit` meta at 50 %) or info notices ("NAME #i").

A prompt in steady mode is answered "ok".
"""

from __future__ import annotations

import asyncio
import json
import os
import signal
import time
from pathlib import Path
from typing import Any

from acp import RequestError
from acp.connection import Connection
from acp.stdio import stdio_streams

NAME = os.environ.get("STRESS_NAME", "stress")
MODE = os.environ.get("STRESS_MODE", "flood")


class StressAgent:
    def __init__(self) -> None:
        self.connection: Connection | None = None
        self.sessions: list[str] = []
        self.tasks: set[asyncio.Task[None]] = set()

    async def update(self, session_id: str, update: dict[str, Any]) -> None:
        assert self.connection is not None
        await self.connection.send_notification("session/update", {"sessionId": session_id, "update": update})

    async def say(self, session_id: str, text: str) -> None:
        await self.update(
            session_id, {"sessionUpdate": "agent_message_chunk", "content": {"type": "text", "text": text}}
        )

    async def __call__(self, method: str, params: Any, is_notification: bool) -> Any:
        if method == "initialize":
            return {"protocolVersion": 1, "agentCapabilities": {"loadSession": False}, "authMethods": []}
        if method == "session/new":
            session_id = f"{NAME}-{len(self.sessions) + 1}"
            self.sessions.append(session_id)
            return {"sessionId": session_id}
        if method == "session/prompt":
            if MODE == "flood":
                await self.flood(params["sessionId"])
            elif MODE == "paced":
                await self.paced(params["sessionId"], params["prompt"][0]["text"].split())
            else:
                await self.say(params["sessionId"], "ok")
            return {"stopReason": "end_turn"}
        if is_notification:
            return None
        raise RequestError.method_not_found(method)

    # flood ------------------------------------------------------------------------------------

    async def flood(self, session_id: str) -> None:
        count = int(os.environ.get("FLOOD_COUNT", "100000"))
        chunks = max(1, int(os.environ.get("FLOOD_CHUNKS", "10")))
        every = max(1, count // chunks)
        start = time.time()
        for i in range(count):
            await self.update(
                session_id,
                {
                    "sessionUpdate": "notice",
                    "severity": "info",
                    "title": f"flood {i}",
                    "description": f"notice {i + 1} of {count} from the flood agent",
                },
            )
            if (i + 1) % every == 0 and (i + 1) // every <= chunks:
                await self.say(session_id, f"part {(i + 1) // every}/{chunks} ")
        end = time.time()
        stats = os.environ.get("FLOOD_STATS")
        if stats:
            report = json.dumps({"count": count, "start": start, "end": end})
            await asyncio.to_thread(Path(stats).write_text, report, encoding="utf-8")
        await self.say(session_id, f"flood done: {count} notices in {end - start:.2f} s\n")

    # paced ------------------------------------------------------------------------------------

    async def paced(self, session_id: str, words: list[str]) -> None:
        kind, count, rate = words[0], int(words[1]), float(words[2])
        start = time.monotonic()
        limit = {"status": "allowed", "rateLimitType": "five_hour", "utilization": 0.5, "resetsAt": time.time() + 3600}
        for i in range(count):
            delay = start + i / rate - time.monotonic()
            if delay > 0:
                await asyncio.sleep(delay)
            if kind == "usage":
                update: dict[str, Any] = {
                    "sessionUpdate": "usage_update",
                    "used": 1000 + 10 * i,
                    "size": 200000,
                    "cost": {"amount": round(0.0001 * (i + 1), 6), "currency": "USD"},
                }
                if i % 10 == 0:
                    update["_meta"] = {"_claude/rateLimit": limit}
            else:
                update = {"sessionUpdate": "notice", "severity": "info", "title": f"{NAME} #{i}"}
            await self.update(session_id, update)
        await self.say(session_id, "ok")

    # steady -----------------------------------------------------------------------------------

    def start_phase(self) -> None:
        task = asyncio.create_task(self.steady())
        self.tasks.add(task)
        task.add_done_callback(self.tasks.discard)

    async def steady(self) -> None:
        phase = json.loads((Path(os.environ["STEADY_DIR"]) / "phase.json").read_text(encoding="utf-8"))
        start, duration, rate, streams = phase["start"], phase["duration"], phase["rate"], phase["streams"]
        first = phase["slot"][NAME]
        period = 1.0 / rate
        schedule = sorted(
            (start + (first + k) / streams * period + i * period, k, i)
            for k in range(len(self.sessions))
            for i in range(int(duration * rate) + 1)
            if (first + k) / streams * period + i * period < duration
        )
        for due, k, i in schedule:
            delay = due - time.monotonic()
            if delay > 0:
                await asyncio.sleep(delay)
            sent = time.monotonic()
            await self.update(
                self.sessions[k],
                {
                    "sessionUpdate": "notice",
                    "severity": "info",
                    "title": f"{NAME} s{k} #{i}",
                    "description": f"sent={sent:.6f}",
                    "_meta": {"sentAt": sent},
                },
            )


async def serve() -> None:
    reader, writer = await stdio_streams()
    agent = StressAgent()
    agent.connection = Connection(agent, writer, reader, listening=False)
    if MODE == "steady":
        directory = Path(os.environ["STEADY_DIR"])
        asyncio.get_running_loop().add_signal_handler(signal.SIGUSR1, agent.start_phase)
        (directory / f"{NAME}.pid").write_text(str(os.getpid()), encoding="utf-8")
    await agent.connection.main_loop()


if __name__ == "__main__":
    asyncio.run(serve())
