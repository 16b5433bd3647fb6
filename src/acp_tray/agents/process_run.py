"""One local agent process's run: started in its directory with its environment, connected over its
stdio, its end told (exit code, stderr's last lines), and its process tree stopped.

A process that only answered `initialize` before a protocol fallback is stopped without grace, in
the background: the next start need not wait for it (`stopped()` waits for such trees).
"""

from __future__ import annotations

import asyncio
import contextlib
import errno
import logging
from collections.abc import Callable, Mapping

from acp_tray.agents.environment import agent_environment
from acp_tray.agents.handshake import Connect, HandshakeFailure, RunEnd
from acp_tray.agents.process_tree import AgentProcess
from acp_tray.agents.signin import SignIn
from acp_tray.agents.spec import AgentSpec
from acp_tray.agents.status_report import StatusReport
from acp_tray.agents.stderr import StderrTail
from acp_tray.agents.transport import DropLog, LineTransport, WatchedTransport
from acp_tray.events import AgentState
from acp_tray.files.paths import demo_introduced_file

SETTLE_TIMEOUT = 1.0
TEMPORARY_ERRNOS = frozenset({errno.EMFILE, errno.ENFILE, errno.ENOMEM, errno.EAGAIN})


class ProcessRun:
    def __init__(
        self,
        name: str,
        spec: AgentSpec,
        stderr: StderrTail,
        log: logging.Logger,
        *,
        connect: Connect,
        report: StatusReport,
        signin: SignIn,
        on_drop: DropLog,
        max_line_bytes: int,
        secrets: Callable[[str], Mapping[str, str]] | None,
        run_mark: str | None,
    ) -> None:
        self._name = name
        self._spec = spec
        self._stderr = stderr
        self._log = log
        self._connect = connect
        self._report = report
        self._signin = signin
        self._on_drop = on_drop
        self._max_line_bytes = max_line_bytes
        self._secrets = secrets  # the agent's secrets from the OS keyring, by agent name (blocking)
        self._run_mark = run_mark  # this daemon's (agents/leftovers.py): the agent's environment carries it
        self._stopping: set[asyncio.Task[None]] = set()  # process trees of fallbacks, going

    async def run(self) -> RunEnd:
        self._stderr.new_run()  # one tail per run: an earlier run's lines are not this one's reason
        if not self._spec.cwd.is_dir():
            self._report.status(AgentState.FAILED, f"working directory {self._spec.cwd} does not exist")
            return RunEnd.CANNOT_START
        secrets = await asyncio.to_thread(self._secrets, self._name) if self._secrets is not None else {}
        introduced = str(demo_introduced_file(self._name))
        env = agent_environment({**self._spec.env, **secrets}, run_mark=self._run_mark, introduced=introduced)
        self._signin.env_names = frozenset(env)  # names only: which env_var sign-ins can work
        command = self._spec.command
        try:
            agent = await AgentProcess.start(command, env=env, cwd=self._spec.cwd, limit=self._max_line_bytes)
        except Exception as exc:  # only the spawn itself: a broken pipe later is the agent going, not this
            reason = (exc.strerror if isinstance(exc, OSError) else None) or str(exc) or type(exc).__name__
            if isinstance(exc, OSError) and exc.errno in TEMPORARY_ERRNOS:  # not the agent's fault, and it passes
                self._report.status(AgentState.STARTING, f"cannot start {command[0]!r} now: {reason}; trying again")
                return RunEnd.SHORT_OF_RESOURCES
            # OSError: no such program, not executable; ValueError: what no process can be given (a NUL)
            self._report.status(AgentState.FAILED, f"cannot start {command[0]!r}: {reason}")
            return RunEnd.CANNOT_START
        self._log.info("running as pid %d, in a process group of its own", agent.pid)
        drain = asyncio.create_task(self._stderr.drain(agent.stderr), name=f"stderr:{self._name}")
        lines = LineTransport(
            agent.stdout,
            agent.stdin,
            on_drop=self._on_drop,
            on_text=self._stderr.keep_stdout,
            max_line_bytes=self._max_line_bytes,
        )
        transport = WatchedTransport(lines)
        grace = True
        try:
            # an agent that stopped reading would hold every write (and the SDK's stdin flush on the
            # way out) forever: its stdin is cut before the connection and the process are closed
            async with self._connect(transport, agent.let_go) as connection:
                if isinstance(connection, HandshakeFailure):
                    if connection.end is RunEnd.RECONNECT:
                        grace = False  # it only answered `initialize`: nothing of its to save
                        return RunEnd.RECONNECT  # the tree goes below: a fresh one
                    await self._failed(agent, transport, drain, connection)
                    return connection.end
                # its output closing ends it as much as its exit: a forked child holding the pipe
                # must not keep a gone agent "connected"
                await agent.ended(transport.ended)
                await drained(drain)
                how = f"exit code {agent.returncode}" if agent.exited else "it closed its output"
                self._report.status(AgentState.EXITED, how + self._stderr.hint())
                return RunEnd.ENDED
        finally:
            drain.cancel()
            if grace:
                with contextlib.suppress(Exception, asyncio.CancelledError):
                    await agent.stop()
            else:  # the next start need not wait for this tree to go
                stopping = asyncio.create_task(agent.stop(grace=0), name=f"stop:{self._name}")
                self._stopping.add(stopping)
                stopping.add_done_callback(self._stopping.discard)

    async def _failed(
        self, agent: AgentProcess, transport: WatchedTransport, drain: asyncio.Task[None], failure: HandshakeFailure
    ) -> None:
        """Tell why the handshake failed, with what the agent wrote on its way out."""
        if failure.end is RunEnd.REFUSED:
            await self._stderr.quiet(SETTLE_TIMEOUT)  # what it wrote on the way to its answer
            self._report.refused(failure.reason)
            return
        if await settled(agent, transport.ended):
            await drained(drain)
        self._report.status(AgentState.FAILED, failure.reason + exit_code(agent) + self._stderr.hint())

    async def stopped(self) -> None:
        """Until the process trees left from fallbacks are gone."""
        with contextlib.suppress(Exception, asyncio.CancelledError):
            await asyncio.gather(*self._stopping)


async def settled(agent: AgentProcess, output_closed: asyncio.Event) -> bool:
    """Briefly, for the agent to end (its exit or its output closing); True when it did."""
    try:
        await asyncio.wait_for(agent.either_ended(output_closed), SETTLE_TIMEOUT)
    except TimeoutError:
        return False
    await agent.other_ended(output_closed)
    return True


async def drained(drain: asyncio.Task[None]) -> None:
    """Briefly, for the rest of its stderr (a survivor may hold the pipe: not for ever)."""
    with contextlib.suppress(TimeoutError, asyncio.CancelledError):
        async with asyncio.timeout(SETTLE_TIMEOUT):
            await asyncio.shield(drain)


def exit_code(agent: AgentProcess) -> str:
    return f"; exit code {agent.returncode}" if agent.exited else ""
