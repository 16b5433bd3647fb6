"""Windows' control channel, the named pipe (run by the Windows lane under Wine): the CLI's pipe
stream needs no seek, and the daemon's pipe server keeps serving whatever clients did while it
was starting (connected and left before it accepted, or queued up)."""

from __future__ import annotations

import asyncio
import contextlib
import os
import sys
import threading
import time
from collections.abc import Iterator
from typing import Any

import pytest

pytestmark = pytest.mark.skipif(sys.platform != "win32", reason="named pipes: Windows (the Windows lane)")


def _pipe_name(tag: str) -> str:
    return rf"\\.\pipe\acp-tray-test-{os.getpid()}-{tag}"


# declared ops that take no argument: each answered with its name, so an answer shows which request it was
NO_ARGUMENT_OPS = ("status", "agents.list", "approvals", "sessions", "prefs.apply")


class Served:
    """acp-tray's ControlServer on its own loop and thread, answering every declared op with its name."""

    def __init__(self, name: str, *, busy_at_start: float = 0.0) -> None:
        self.name = name
        self.busy_at_start = busy_at_start
        self.loop = asyncio.new_event_loop()
        self.started = threading.Event()
        self.thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        from acp_tray.control import api
        from acp_tray.control import server as control_server

        def answer_with_name(op: api.Op[Any, Any, Any]) -> Any:
            async def run(args: Any, emit: Any) -> Any:
                return {"op": op.name}

            return run

        table = control_server.dispatch(*(control_server.Route(op, answer_with_name(op)) for op in api.OPS))

        async def main() -> None:
            control = control_server.ControlServer(table)
            await control.start()
            self.control = control
            self.started.set()
            # the daemon busy starting (imports, agents): the loop does not run, on purpose
            time.sleep(self.busy_at_start)  # noqa: ASYNC251
            self.stop = asyncio.Event()
            await self.stop.wait()
            await control.aclose()

        self.loop.run_until_complete(main())

    def close(self) -> None:
        self.loop.call_soon_threadsafe(lambda: self.stop.set())
        self.thread.join(10)


@pytest.fixture
def pipe_name(monkeypatch: pytest.MonkeyPatch, request: pytest.FixtureRequest) -> Iterator[str]:
    name = _pipe_name(request.node.name[-20:].strip("[]"))
    from acp_tray.control import client, server

    monkeypatch.setattr(server, "pipe_name", lambda: name)
    monkeypatch.setattr(client, "pipe_name", lambda: name)
    yield name


def _ask(op: str) -> Any:
    from acp_tray.control.client import request

    return request(op, timeout=None)


def _ask_within(op: str, seconds: float) -> Any:
    answer: dict[str, Any] = {}

    def ask() -> None:
        try:
            answer["result"] = _ask(op)
        except Exception as exc:
            answer["error"] = exc

    thread = threading.Thread(target=ask, daemon=True)
    thread.start()
    thread.join(seconds)
    assert not thread.is_alive(), f"{op}: no answer within {seconds} s (the pipe server is stuck)"
    if "error" in answer:
        raise answer["error"]
    return answer["result"]


def test_the_cli_reads_and_writes_the_pipe_without_seeking(pipe_name: str) -> None:
    served = Served(pipe_name)
    served.thread.start()
    assert served.started.wait(10)
    try:
        assert _ask_within("status", 20) == {"op": "status"}  # before: "not seekable" under Wine
    finally:
        served.close()


def test_clients_that_came_and_went_while_the_daemon_started_do_not_stop_the_server(pipe_name: str) -> None:
    """While the server's loop is busy right after the pipe was made, clients connect and leave
    without a word (as `status` polls that give up do), and one waits with its request; all later
    clients are still answered."""
    from acp_tray.control.client import open_pipe

    served = Served(pipe_name, busy_at_start=2.0)
    served.thread.start()
    assert served.started.wait(10)
    try:
        for _ in range(3):
            with contextlib.suppress(Exception):  # busy (another instance is connected): what a poll sees too
                open_pipe(pipe_name, busy_wait=0).close()
        waiting = threading.Thread(target=lambda: _ask_within("quit", 30), daemon=True)
        waiting.start()
        time.sleep(2.5)
        for later in NO_ARGUMENT_OPS:
            assert _ask_within(later, 20) == {"op": later}
        waiting.join(30)
    finally:
        served.close()
