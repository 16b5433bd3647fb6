"""Keep an agent running: restart it after a crash with exponential backoff, give up on a crash loop.

A crash is any end of a connection acp-tray did not ask for. The delay doubles from `initial`
up to `maximum` while crashes keep coming (a connection that lasted `stable` seconds starts
the count again). A local agent that crashes `give_up_after` times in a row, each within `fast`
seconds of starting, is left stopped: restarting it would only repeat the crash. A remote
agent is never given up on (its server may come back).
"""

from __future__ import annotations

import asyncio
import dataclasses
import logging

from acp_tray.agents.host import AgentHost, RunEnd
from acp_tray.backoff import Backoff, BackoffPolicy
from acp_tray.events import AgentCrashed, AgentState, AgentStatus, EventSink

STDERR_LINES = 10
RESOURCE_RETRY = 2.0  # seconds between starts while the system is short of descriptors or memory

log = logging.getLogger(__name__)


async def supervise(host: AgentHost, sink: EventSink, policy: BackoffPolicy) -> None:
    """Run `host` until it cannot start, is given up on, or this task is cancelled (stopped)."""
    loop = asyncio.get_running_loop()
    backoff = Backoff(dataclasses.replace(policy, give_up_after=None) if host.spec.remote else policy)
    while True:
        started = loop.time()
        try:
            end = await host.run()
        except Exception as exc:  # acp-tray's own fault: said and logged, not a task nobody looks at
            log.exception("%s: could not be run", host.name)
            sink(AgentStatus(host.name, AgentState.FAILED, f"internal error: {type(exc).__name__}: {exc}"))
            return
        current = asyncio.current_task()
        if current is not None and current.cancelling():  # stopped, but the host's cleanup swallowed the cancel
            return
        if end in (RunEnd.CANNOT_START, RunEnd.REFUSED):  # a restart, config change or sign-in tries again
            return
        if end is RunEnd.RECONNECT:  # a protocol fallback, not a crash
            continue
        if end is RunEnd.SHORT_OF_RESOURCES:  # out of descriptors: no crash, no giving up; try again
            await asyncio.sleep(RESOURCE_RETRY)
            continue
        delay = backoff.crashed(loop.time() - started)
        stderr = tuple(host.stderr.tail()[-STDERR_LINES:])
        sink(AgentCrashed(host.name, host.last_detail, stderr, delay, backoff.streak))
        if delay is not None:
            log.info("%s crashed (%s); restarting in %g s", host.name, host.last_detail, delay)
        else:
            log.info(
                "%s crashed (%s) %d times in a row; not restarted", host.name, host.last_detail, backoff.fast_streak
            )
            sink(AgentStatus(host.name, AgentState.FAILED, f"stopped after {backoff.fast_streak} crashes in a row"))
            return
        await asyncio.sleep(delay)
