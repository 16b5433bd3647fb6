"""A local agent's whole process tree: started on its own, stopped as a whole.

Agents are often launchers: an npm wrapper around a native binary, a shell script, a process
that forks and exits. Stopping only the direct child leaves the rest running with parent 1.
So each agent starts in its own process group (POSIX: a new session) or job object (Windows),
and `stop()` ends the whole tree: stdin closed, a short grace, SIGTERM to the group, then
SIGKILL (Windows: the job is terminated).

The SDK's `acp.transports.spawn_stdio_transport` cannot start a process group and waits for the
direct child only, so the spawn is done here; the streams are asyncio's own (as the SDK's are),
and the connection still runs on the SDK's `Connection` and `MessageSender`.

The agent has *ended* when its leader exits or its stdout closes, whichever comes first
(`ended()`): a forked child that kept the pipe open must not keep a gone agent "connected".
On Python 3.11 `Process.wait()` waits for every pipe to close as well, so the leader's exit is
watched here through the subprocess protocol.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import signal
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

log = logging.getLogger(__name__)

STOP_GRACE = 1.0  # after stdin is closed, before SIGTERM
TERM_GRACE = 1.0  # after SIGTERM, before SIGKILL
REAP_TIMEOUT = 2.0  # after SIGKILL
POLL = 0.02
LET_GO = 0.3


class _TreeProtocol(asyncio.subprocess.SubprocessStreamProtocol):
    """asyncio's stream protocol, plus an event when the leader itself exits."""

    def __init__(self, limit: int, loop: asyncio.AbstractEventLoop) -> None:
        super().__init__(limit=limit, loop=loop)
        self.exited = asyncio.Event()

    def process_exited(self) -> None:
        super().process_exited()
        self.exited.set()


class AgentProcess:
    """One running local agent (the leader and everything it starts)."""

    def __init__(
        self, process: asyncio.subprocess.Process, transport: asyncio.SubprocessTransport, protocol: _TreeProtocol
    ) -> None:
        assert process.stdin is not None and process.stdout is not None and process.stderr is not None
        self.process = process
        self.stdin: asyncio.StreamWriter = process.stdin
        self.stdout: asyncio.StreamReader = process.stdout
        self.stderr: asyncio.StreamReader = process.stderr
        self.pid = process.pid
        self._transport = transport
        self._protocol = protocol
        self._job: _Job | None = None

    @classmethod
    async def start(cls, command: Sequence[str], *, env: Mapping[str, str], cwd: Path, limit: int) -> AgentProcess:
        """Start `command` in a group of its own. OSError when it cannot be started."""
        loop = asyncio.get_running_loop()
        program, *args = command
        extra: dict[str, Any] = {}
        if sys.platform == "win32":
            import subprocess

            extra["creationflags"] = subprocess.CREATE_NEW_PROCESS_GROUP
        else:
            extra["start_new_session"] = True  # its own session and process group, pgid == pid
        pipe = asyncio.subprocess.PIPE
        transport, protocol = await loop.subprocess_exec(
            lambda: _TreeProtocol(limit, loop),
            program,
            *args,
            stdin=pipe,
            stdout=pipe,
            stderr=pipe,
            env=dict(env),
            cwd=str(cwd),
            **extra,
        )
        agent = cls(asyncio.subprocess.Process(transport, protocol, loop), transport, protocol)
        if sys.platform == "win32":
            agent._job = _Job.around(transport)
        return agent

    @property
    def returncode(self) -> int | None:
        return self._transport.get_returncode()

    @property
    def exited(self) -> bool:
        """The leader has exited (its children may live on until `stop()`)."""
        return self._protocol.exited.is_set()

    async def ended(self, output_closed: asyncio.Event) -> None:
        """Wait until the leader exits or its stdout closes (`output_closed`), then a moment for the
        other of the two."""
        await self.either_ended(output_closed)
        await self.other_ended(output_closed)

    async def either_ended(self, output_closed: asyncio.Event) -> None:
        """Wait until the leader exits or its stdout closes (`output_closed`), whichever comes first
        (unbounded: a caller that cannot wait forever bounds it with `asyncio.timeout`)."""
        waits = [asyncio.ensure_future(self._protocol.exited.wait()), asyncio.ensure_future(output_closed.wait())]
        try:
            await asyncio.wait(waits, return_when=asyncio.FIRST_COMPLETED)
        finally:
            for w in waits:
                w.cancel()

    async def other_ended(self, output_closed: asyncio.Event) -> None:
        """After `either_ended`, the other half, briefly: its last output after its exit, its exit
        code after its EOF."""
        other = output_closed if self.exited else self._protocol.exited
        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout(STOP_GRACE):
                await other.wait()

    async def let_go(self) -> None:
        """Before closing: let what is on its way (answers to the agent's requests) go out, briefly;
        an agent that stopped reading gets its stdin cut instead of holding everything."""
        with contextlib.suppress(Exception):
            await asyncio.sleep(LET_GO)  # the SDK writes queued answers from its own tasks
            await asyncio.wait_for(self.stdin.drain(), LET_GO)
        if self.stdin.transport.get_write_buffer_size():
            self.close_stdin()

    def close_stdin(self) -> None:
        if not self.stdin.transport.is_closing():
            with contextlib.suppress(Exception):
                self.stdin.transport.abort()

    async def stop(self, grace: float = STOP_GRACE) -> None:
        """End the whole tree: stdin closed, `grace` seconds, SIGTERM to the group, then SIGKILL.
        Returns once the leader is reaped and the pipes are closed (bounded: never hangs)."""
        self.close_stdin()
        finished = False
        try:
            if grace > 0 and not self.exited:
                with contextlib.suppress(TimeoutError):
                    async with asyncio.timeout(grace):
                        await self._protocol.exited.wait()
            if self._signal(signal.SIGTERM):
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(self._group_gone(), TERM_GRACE)
                if self._signal(_SIGKILL):
                    with contextlib.suppress(TimeoutError):  # a signal is delivered, not acted on, when kill() returns
                        await asyncio.wait_for(self._group_gone(), REAP_TIMEOUT)
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(REAP_TIMEOUT):
                    await self._protocol.exited.wait()
            finished = True
        finally:
            if not finished:  # cancelled on the way (the daemon is going): nothing may outlive it
                self._signal(_SIGKILL)
            self._transport.close()  # the pipes, even one a survivor held (no 'Event loop is closed' later)
            if self._job is not None:
                self._job.close()

    def _signal(self, sig: int) -> bool:
        """Send `sig` to the whole tree; False when nothing of it is left."""
        if self._job is not None:
            self._job.terminate()
            return False
        if sys.platform == "win32":  # no job object (it could not be made): the leader alone
            if self.exited:
                return False
            with contextlib.suppress(ProcessLookupError):
                self._transport.kill()
            return not self.exited
        try:
            os.killpg(self.pid, sig)
        except ProcessLookupError:
            return False
        except PermissionError:  # the group id went to someone else's session: not ours to signal
            log.warning("process group %d of an agent is no longer ours; not signalled", self.pid)
            return False
        return True

    async def _group_gone(self) -> None:
        """Poll until nothing of the tree is left (unbounded: the caller bounds it). Polled: the
        group's other members are not our children, so nothing tells us when they go."""
        while True:
            if not self._group_alive():
                return
            await asyncio.sleep(POLL)

    def _group_alive(self) -> bool:
        if sys.platform == "win32":
            return not self.exited
        try:
            os.killpg(self.pid, 0)
        except (ProcessLookupError, PermissionError):
            return False
        return not _only_zombies(self.pid)


_SIGKILL: int = getattr(signal, "SIGKILL", signal.SIGTERM)


def _only_zombies(pgid: int) -> bool:
    """Linux: whether every process left in group `pgid` has already exited (a zombie waiting for
    its parent): nothing left to stop. Elsewhere: False (keep waiting until the deadline)."""
    proc = Path("/proc")
    if not proc.is_dir():
        return False
    for entry in proc.iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        fields = stat.rsplit(")", 1)[-1].split()  # after "(comm)": state ppid pgrp ...
        if len(fields) > 2 and fields[2] == str(pgid) and fields[0] != "Z":
            return False
    return True


class _Job:
    """Windows: a job object that holds the agent and every process it starts (nested jobs
    allowed), terminated as a whole; closing its last handle kills what is left too."""

    def __init__(self, handle: int) -> None:
        self._handle = handle

    @classmethod
    def around(cls, transport: asyncio.SubprocessTransport) -> _Job | None:
        if sys.platform != "win32":
            return None
        import ctypes
        from ctypes import wintypes

        kernel32 = ctypes.WinDLL("kernel32", use_last_error=True)
        kernel32.CreateJobObjectW.restype = wintypes.HANDLE
        job = kernel32.CreateJobObjectW(None, None)
        if not job:
            log.warning("could not create a job object for an agent; only its own process will be stopped")
            return None

        class _Basic(ctypes.Structure):
            _fields_ = [
                ("PerProcessUserTimeLimit", ctypes.c_int64),
                ("PerJobUserTimeLimit", ctypes.c_int64),
                ("LimitFlags", wintypes.DWORD),
                ("MinimumWorkingSetSize", ctypes.c_size_t),
                ("MaximumWorkingSetSize", ctypes.c_size_t),
                ("ActiveProcessLimit", wintypes.DWORD),
                ("Affinity", ctypes.c_size_t),
                ("PriorityClass", wintypes.DWORD),
                ("SchedulingClass", wintypes.DWORD),
            ]

        class _Extended(ctypes.Structure):
            _fields_ = [
                ("BasicLimitInformation", _Basic),
                ("IoInfo", ctypes.c_uint64 * 6),
                ("ProcessMemoryLimit", ctypes.c_size_t),
                ("JobMemoryLimit", ctypes.c_size_t),
                ("PeakProcessMemoryUsed", ctypes.c_size_t),
                ("PeakJobMemoryUsed", ctypes.c_size_t),
            ]

        info = _Extended()
        info.BasicLimitInformation.LimitFlags = 0x2000  # JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE
        kernel32.SetInformationJobObject(job, 9, ctypes.byref(info), ctypes.sizeof(info))  # ExtendedLimitInformation
        popen = transport.get_extra_info("subprocess")
        handle = getattr(popen, "_handle", None)
        # a child started between the spawn and this call is outside the job (Popen cannot start suspended)
        if handle is None or not kernel32.AssignProcessToJobObject(job, int(handle)):
            kernel32.CloseHandle(job)
            log.warning("could not put an agent in a job object; only its own process will be stopped")
            return None
        return cls(int(job))

    def terminate(self) -> None:
        if sys.platform == "win32":
            import ctypes

            ctypes.WinDLL("kernel32").TerminateJobObject(self._handle, 1)

    def close(self) -> None:
        if sys.platform == "win32" and self._handle:
            import ctypes

            ctypes.WinDLL("kernel32").CloseHandle(self._handle)
            self._handle = 0
