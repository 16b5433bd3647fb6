"""What a running daemon asks of the kernel while a block of a test runs: `strace` attached to it
and all its threads, read back as the control requests it answered (the op read from a socket, up
to the final reply written to that socket) and the files it opened while answering each one. Seen
from outside the process: nothing in acp-tray is patched or counted for it."""

from __future__ import annotations

import contextlib
import heapq
import re
import shutil
import subprocess
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

_LINE = re.compile(r"^(?P<time>\d+\.\d+) (?P<call>\w+)\((?P<args>.*)$")
_FD = re.compile(r"^(\d+)<")
_OP = re.compile(r'\\"op\\":\\"([^\\"]+)\\"')
_OPENED = re.compile(r'^AT_FDCWD(?:<[^>]*>)?, "((?:[^"\\]|\\.)*)", (O_[A-Z_|]+)')


@dataclass
class Request:
    """One control request as the daemon answered it."""

    op: str
    opened: list[str] = field(default_factory=list)  # the files opened to read while it was answered
    answered: bool = False  # its final reply was written (a `watch` stream has none while it lasts)


@dataclass
class Trace:
    """The requests answered while the trace ran, in order, and every file opened to read."""

    requests: list[Request] = field(default_factory=list)
    opened: list[str] = field(default_factory=list)

    def answered(self) -> list[Request]:
        return [request for request in self.requests if request.answered]

    def reads_of(self, path: Path) -> int:
        """How often the answered requests opened `path` (or its link's target) to read it."""
        names = {str(path), str(path.resolve())}
        return sum(name in names for request in self.answered() for name in request.opened)


def _calls(files: list[Path]) -> Iterator[tuple[str, str]]:
    """Every thread's system calls, merged in the order they were made: (call, its arguments)."""

    def one(path: Path) -> Iterator[tuple[float, str, str]]:
        for line in path.read_text(encoding="utf-8", errors="replace").splitlines():
            found = _LINE.match(line)
            if found is not None:
                yield float(found["time"]), found["call"], found["args"]

    for _, call, args in heapq.merge(*(one(path) for path in files)):
        yield call, args


def _read(files: list[Path]) -> Trace:
    trace = Trace()
    open_requests: dict[str, Request] = {}  # by the socket's descriptor
    for call, args in _calls(files):
        fd = _FD.match(args)
        if call == "recvfrom" and fd is not None and (op := _OP.search(args)) is not None:
            request = Request(op.group(1))
            trace.requests.append(request)
            open_requests[fd.group(1)] = request
        elif call == "sendto" and fd is not None and '{\\"v\\":1,\\"ok\\":' in args:
            if fd.group(1) in open_requests:
                open_requests.pop(fd.group(1)).answered = True
        elif call == "openat" and (opened := _OPENED.match(args)) is not None and "O_RDONLY" in opened.group(2):
            trace.opened.append(opened.group(1))
            for request in open_requests.values():
                request.opened.append(opened.group(1))
    return trace


@contextlib.contextmanager
def traced(pid: int, into: Path) -> Iterator[Trace]:
    """`pid`'s control requests and file reads while the block runs (the trace is filled in when
    the block ends); `into`: a directory for strace's files, one a thread."""
    strace = shutil.which("strace")
    assert strace, "strace is installed by .ci/system-deps"
    into.mkdir(parents=True, exist_ok=True)
    calls = "trace=openat,recvfrom,sendto"
    command = [strace, "-f", "-ff", "-ttt", "-y", "-s", "96", "-e", calls, "-e", "signal=none", "-o", str(into / "t")]
    tracer = subprocess.Popen([*command, "-p", str(pid)], stderr=subprocess.PIPE, text=True)
    assert tracer.stderr is not None
    said = tracer.stderr.readline()  # "Process N attached with M threads": said once all are, none missed
    assert "attached" in said, f"strace could not attach to {pid}: {said}{tracer.communicate(timeout=30)[1]}"
    trace = Trace()
    try:
        yield trace
    finally:
        tracer.terminate()  # detaches; the process runs on
        tracer.communicate(timeout=30)
    read = _read(sorted(into.glob("t.*")))
    trace.requests, trace.opened = read.requests, read.opened
