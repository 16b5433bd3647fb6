"""The demo agent over WebSocket (`acp-tray demo-agent --listen HOST:PORT`): one agent and one SDK
`Connection` per accepted socket, JSON-RPC in text frames."""

from __future__ import annotations

import argparse
import asyncio
import json
from collections.abc import Callable
from typing import Any, Protocol

from acp.connection import Connection, MethodHandler
from websockets.asyncio.server import ServerConnection, serve
from websockets.exceptions import ConnectionClosed

from acp_tray.protocol.jsonrpc import jsonrpc_problem


class SocketAgent(Protocol):
    """What `serve_websocket` needs of an agent: the SDK handler signature and a `connection` slot."""

    connection: Connection | None

    async def __call__(self, method: str, params: Any, is_notification: bool) -> Any: ...


def listen_address(text: str) -> tuple[str, int]:
    """`HOST:PORT` (`[::1]:PORT` for IPv6; port 0 picks a free one) for argparse's `type=`."""
    host, sep, port = text.rpartition(":")
    host = host.removeprefix("[").removesuffix("]")
    if not sep or not host or not port.isdigit() or int(port) > 65535:
        raise argparse.ArgumentTypeError(f"expected HOST:PORT such as 127.0.0.1:8765, not {text!r}")
    return host, int(port)


class SocketTransport:
    """SDK `Transport` over one server-side socket: text frames to and from JSON-RPC objects."""

    def __init__(self, ws: ServerConnection) -> None:
        self._ws = ws

    async def send(self, message: dict[str, Any]) -> None:
        try:
            await self._ws.send(json.dumps(message, separators=(",", ":")))
        except ConnectionClosed:
            raise ConnectionError("the client has gone") from None

    async def receive(self) -> dict[str, Any] | None:
        while True:
            try:
                frame = await self._ws.recv()
            except ConnectionClosed:
                return None
            if isinstance(frame, bytes):
                continue
            try:
                message: object = json.loads(frame)
            except (ValueError, RecursionError):
                continue
            if jsonrpc_problem(message) is None:
                assert isinstance(message, dict)
                return message

    async def close(self) -> None:
        await self._ws.close()


def _quiet_when_a_client_goes(loop: asyncio.AbstractEventLoop, context: dict[str, Any]) -> None:
    if isinstance(context.get("exception"), ConnectionError):
        return  # an agent's background task (e.g. the notice series) outlived its client's socket
    loop.default_exception_handler(context)


async def serve_websocket(host: str, port: int, make_agent: Callable[[], SocketAgent]) -> None:
    """Serve until cancelled; once bound, print `listening on ws://HOST:PORT` (the real port) to stdout."""

    async def handle(ws: ServerConnection) -> None:
        agent = make_agent()
        handler: MethodHandler = agent
        connection = Connection(handler, SocketTransport(ws), listening=False)
        agent.connection = connection
        try:
            await connection.main_loop()
        finally:
            await connection.close()

    asyncio.get_running_loop().set_exception_handler(_quiet_when_a_client_goes)
    async with serve(handle, host, port) as server:
        bound_host, bound_port = next(iter(server.sockets)).getsockname()[:2]
        shown = f"[{bound_host}]" if ":" in bound_host else bound_host
        print(f"listening on ws://{shown}:{bound_port}", flush=True)
        await server.serve_forever()
