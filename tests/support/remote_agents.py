"""Remote agents for tests run against a daemon subprocess: a WebSocket server in a thread of the
test (its handler is plain blocking code), and a stdio agent relayed over one, one agent process
per connection."""

from __future__ import annotations

import contextlib
import subprocess
import threading
from collections.abc import Callable, Iterator

from websockets.exceptions import ConnectionClosed
from websockets.sync.server import ServerConnection, serve


@contextlib.contextmanager
def served(handle: Callable[[ServerConnection], None]) -> Iterator[str]:
    """A WebSocket server on 127.0.0.1 calling `handle` for each connection, until the block ends; its ws:// URL."""
    with serve(handle, "127.0.0.1", 0) as server:
        thread = threading.Thread(target=server.serve_forever, daemon=True)
        thread.start()
        try:
            yield f"ws://127.0.0.1:{server.socket.getsockname()[1]}/acp"
        finally:
            server.shutdown()
            thread.join(10)


@contextlib.contextmanager
def stdio_agent_served(command: list[str], env: dict[str, str]) -> Iterator[str]:
    """The stdio agent `command` behind a WebSocket server: each connection starts it and relays one
    JSON-RPC message per text frame, a line each way. Yields the ws:// URL."""
    processes: list[subprocess.Popen[bytes]] = []

    def relay(ws: ServerConnection) -> None:
        agent = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, env=env)
        processes.append(agent)
        assert agent.stdin is not None and agent.stdout is not None
        stdin, stdout = agent.stdin, agent.stdout

        def down() -> None:
            with contextlib.suppress(ConnectionClosed):
                for line in stdout:
                    ws.send(line.decode().strip())

        threading.Thread(target=down, daemon=True).start()
        try:
            for frame in ws:
                stdin.write((frame if isinstance(frame, str) else frame.decode()).strip().encode() + b"\n")
                stdin.flush()
        except (ConnectionClosed, OSError):
            pass
        finally:
            agent.kill()
            agent.wait()

    try:
        with served(relay) as url:
            yield url
    finally:
        for agent in processes:
            with contextlib.suppress(ProcessLookupError):
                agent.kill()
