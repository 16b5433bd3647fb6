"""Remote agents over WebSocket: the demo agent's --listen mode as a real subprocess, and in-test
websockets servers for headers, hostile frames, size limits and connection failures."""

from __future__ import annotations

import asyncio
import json
import os
import re
import socket
import sys
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from http import HTTPStatus
from pathlib import Path
from typing import Any

import pytest
from acp import RequestError
from acp.connection import Connection
from acp.ws import create_websocket_stream
from websockets.asyncio.server import ServerConnection, serve
from websockets.datastructures import Headers
from websockets.http11 import Request, Response

from acp_tray.agents.remote import RemoteConfigError, RemoteTransport, expand_headers, open_remote
from acp_tray.protocol.initialize import initialize_params_v1, new_session_params

TIMEOUT = 15.0
DEMO_SEVERITIES = ["info", "warning", "error", "_demo.tip"]

pytestmark = pytest.mark.usefixtures("no_proxies")


def notice_frame(title: str, session_id: str = "s1") -> str:
    update = {"sessionUpdate": "notice", "severity": "info", "title": title}
    message = {"jsonrpc": "2.0", "method": "session/update", "params": {"sessionId": session_id, "update": update}}
    return json.dumps(message)


class Drops:
    def __init__(self) -> None:
        self.seen: list[tuple[str, bytes]] = []

    def __call__(self, reason: str, preview: bytes) -> None:
        self.seen.append((reason, preview))

    @property
    def reasons(self) -> list[str]:
        return [reason for reason, _ in self.seen]


class Client:
    """The client side's SDK method handler: collects `session/update` notifications."""

    def __init__(self) -> None:
        self.updates: list[dict[str, Any]] = []
        self._changed = asyncio.Event()

    async def __call__(self, method: str, params: Any, is_notification: bool) -> Any:
        if method == "session/update":
            self.updates.append(params)
            self._changed.set()
            return None
        if is_notification:
            return None
        raise RequestError.method_not_found(method)

    async def wait_for(self, count: int) -> list[dict[str, Any]]:
        async def loop() -> None:
            while len(self.updates) < count:
                self._changed.clear()
                await self._changed.wait()

        await asyncio.wait_for(loop(), TIMEOUT)
        return self.updates

    def titles(self) -> list[str]:
        return [u["update"]["title"] for u in self.updates]


@asynccontextmanager
async def ws_server(
    handler: Callable[[ServerConnection], Awaitable[None]], **options: Any
) -> AsyncIterator[tuple[str, int]]:
    async with serve(handler, "127.0.0.1", 0, **options) as server:
        port = next(iter(server.sockets)).getsockname()[1]
        yield f"ws://127.0.0.1:{port}", port


def sends(*frames: str | bytes, after_hello: bool = False) -> Callable[[ServerConnection], Awaitable[None]]:
    """A server that sends `frames` in order (after the client's first message if `after_hello`),
    then waits for the client to go."""

    async def handler(ws: ServerConnection) -> None:
        if after_hello:
            await ws.recv()
        for frame in frames:
            await ws.send(frame)
        await ws.wait_closed()

    return handler


@pytest.fixture
async def demo(tmp_path: Path) -> AsyncIterator[tuple[str, asyncio.subprocess.Process]]:
    """`acp-tray demo-agent --listen 127.0.0.1:0` as a real subprocess; its URL from its stdout."""
    stderr_path = tmp_path / "demo.stderr"
    with stderr_path.open("wb") as stderr:
        proc = await asyncio.create_subprocess_exec(
            sys.executable,
            "-m",
            "acp_tray",
            "demo-agent",
            "--listen",
            "127.0.0.1:0",
            stdout=asyncio.subprocess.PIPE,
            stderr=stderr,
            env={**os.environ, "ACP_TRAY_DEMO_INTERVAL": "0.05", "PYTHONUNBUFFERED": "1"},
        )
    try:
        assert proc.stdout is not None
        line = await asyncio.wait_for(proc.stdout.readline(), 30)
        match = re.fullmatch(rb"listening on ws://127\.0\.0\.1:(\d+)\n", line)
        assert match, f"unexpected first line {line!r}; stderr: {stderr_path.read_text(errors='replace')}"
        yield f"ws://127.0.0.1:{int(match[1])}", proc
    finally:
        if proc.returncode is None:
            proc.kill()
        await proc.wait()


async def run_demo_session(url: str) -> tuple[Client, Drops, str]:
    drops = Drops()
    client = Client()
    transport = await open_remote(url, {}, on_drop=drops)
    async with Connection(client, transport) as connection:
        initialized = await asyncio.wait_for(
            connection.send_request("initialize", initialize_params_v1(notices=True)), TIMEOUT
        )
        assert initialized["protocolVersion"] == 1
        assert initialized["agentInfo"]["name"] == "acp-tray-demo"
        session = await asyncio.wait_for(
            connection.send_request("session/new", new_session_params(str(Path.cwd()))), TIMEOUT
        )
        await client.wait_for(len(DEMO_SEVERITIES))
    return client, drops, session["sessionId"]


async def test_the_demo_agents_notices_arrive_over_websocket(demo: tuple[str, asyncio.subprocess.Process]) -> None:
    url, proc = demo
    client, drops, session_id = await run_demo_session(url)
    assert [u["sessionId"] for u in client.updates] == [session_id] * 4
    assert [u["update"]["sessionUpdate"] for u in client.updates] == ["notice"] * 4
    assert [u["update"]["severity"] for u in client.updates] == DEMO_SEVERITIES
    assert drops.seen == []

    proc.kill()
    await proc.wait()
    assert proc.stdout is not None
    assert await proc.stdout.read() == b"", "the demo agent prints exactly one line"


async def test_each_socket_gets_its_own_demo_agent(demo: tuple[str, asyncio.subprocess.Process]) -> None:
    url, _ = demo
    results = await asyncio.gather(run_demo_session(url), run_demo_session(url))
    for client, drops, session_id in results:
        assert session_id == "demo-session-1"  # a fresh DemoAgent per connection
        assert [u["update"]["severity"] for u in client.updates] == DEMO_SEVERITIES
        assert drops.seen == []


async def test_headers_from_the_environment_reach_the_server(monkeypatch: pytest.MonkeyPatch) -> None:
    token = "tok-" + os.urandom(8).hex()
    monkeypatch.setenv("ACP_TRAY_TEST_TOKEN", token)
    seen: list[Headers] = []

    async def record(ws: ServerConnection) -> None:
        assert ws.request is not None
        seen.append(ws.request.headers)
        await ws.close()

    headers = expand_headers({"Authorization": "Bearer ${ACP_TRAY_TEST_TOKEN}", "X-Cost": "$$1"}, os.environ)
    drops = Drops()
    async with ws_server(record) as (url, _):
        transport = await open_remote(url, headers, on_drop=drops)
        assert await asyncio.wait_for(transport.receive(), TIMEOUT) is None  # the server closed
        await transport.close()
    assert len(seen) == 1
    assert seen[0]["Authorization"] == f"Bearer {token}"
    assert seen[0]["X-Cost"] == "$1"
    assert drops.seen == []


async def test_the_sdks_own_stream_loses_everything_after_a_non_object() -> None:
    """The trap RemoteTransport exists for: with the SDK's stream alone the valid notice never arrives."""
    client = Client()
    async with ws_server(sends("42", notice_frame("after 42"))) as (url, _):
        stream = await create_websocket_stream(url)
        async with Connection(client, stream):
            with pytest.raises(TimeoutError):
                await asyncio.wait_for(client.wait_for(1), 1.0)
    assert client.updates == []


async def test_non_objects_are_dropped_and_the_next_notice_still_arrives() -> None:
    drops = Drops()
    client = Client()
    async with ws_server(sends("42", "[1,2]", '"x"', notice_frame("still here"))) as (url, _):
        transport = await open_remote(url, {}, on_drop=drops)
        async with Connection(client, transport):
            await client.wait_for(1)
    assert client.titles() == ["still here"]
    assert drops.seen == [
        ("not a JSON object", b"42"),
        ("not a JSON object", b"[1,2]"),
        ("not a JSON object", b'"x"'),
    ]


async def test_unroutable_objects_and_deep_nesting_are_dropped_too() -> None:
    drops = Drops()
    client = Client()
    frames: list[str | bytes] = [
        '{"jsonrpc":"2.0","id":[1],"result":{}}',  # unhashable id: the SDK's response lookup would raise
        '{"jsonrpc":"2.0","id":1,"error":"boom"}',
        "[" * 100_000 + "]" * 100_000,  # json.loads raises RecursionError inside the SDK's receive
        b"binary frames are skipped by the SDK, unreported",
        "not JSON: skipped by the SDK, unreported",
        notice_frame("after all that"),
    ]
    async with ws_server(sends(*frames)) as (url, _):
        transport = await open_remote(url, {}, on_drop=drops)
        async with Connection(client, transport):
            await client.wait_for(1)
    assert client.titles() == ["after all that"]
    assert drops.reasons == [
        "id must be a string, a number or null",
        "error must be an object",
        "not JSON (RecursionError)",
    ]


HELLO = {"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {}}


async def test_a_message_over_the_limit_ends_the_connection_and_is_reported() -> None:
    drops = Drops()
    frames = [notice_frame("first"), notice_frame("small"), notice_frame("big " + "x" * 2000), notice_frame("never")]
    async with ws_server(sends(*frames, after_hello=True)) as (url, _):
        transport = await open_remote(url, {}, on_drop=drops, max_message_bytes=1000)
        await transport.send(HELLO)
        for title in ("first", "small"):
            message = await asyncio.wait_for(transport.receive(), TIMEOUT)
            assert message is not None and message["params"]["update"]["title"] == title
        assert await asyncio.wait_for(transport.receive(), TIMEOUT) is None
        await transport.close()
    assert drops.seen == [("message longer than 1000 bytes; the connection was closed", b"")]


async def test_the_default_limit_is_ours_not_websockets_1_mib() -> None:
    drops = Drops()
    big = notice_frame("big " + "x" * (2 * 1024 * 1024))
    async with ws_server(sends(notice_frame("first"), big, after_hello=True)) as (url, _):
        transport = await open_remote(url, {}, on_drop=drops)
        await transport.send(HELLO)
        first = await asyncio.wait_for(transport.receive(), TIMEOUT)
        message = await asyncio.wait_for(transport.receive(), TIMEOUT)
        await transport.close()
    assert first is not None
    assert message is not None and len(message["params"]["update"]["title"]) > 2 * 1024 * 1024
    assert drops.seen == []


async def test_sending_after_the_server_went_raises_connection_error() -> None:
    async def close_at_once(ws: ServerConnection) -> None:
        await ws.close()

    async with ws_server(close_at_once) as (url, _):
        transport = await open_remote(url, {}, on_drop=Drops())
        assert await asyncio.wait_for(transport.receive(), TIMEOUT) is None
        with pytest.raises(ConnectionError, match=re.escape(f"the connection to {url} is closed")):
            await transport.send({"jsonrpc": "2.0", "method": "x"})
        await transport.close()


async def test_a_closed_port_raises_connection_error_naming_the_url_quickly() -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    url = f"ws://127.0.0.1:{port}"
    started = time.monotonic()
    with pytest.raises(ConnectionError) as caught:
        await open_remote(url, {"Authorization": "Bearer secret-value"}, on_drop=Drops())
    assert time.monotonic() - started < 5
    assert str(caught.value) == f"cannot connect to {url}: Connection refused"
    assert "\n" not in str(caught.value)


async def test_a_refused_handshake_names_the_status_and_never_a_header_value() -> None:
    def refuse(connection: ServerConnection, request: Request) -> Response:
        return connection.respond(HTTPStatus.UNAUTHORIZED, "no\n")

    async with ws_server(sends(), process_request=refuse) as (url, _):
        with pytest.raises(ConnectionError) as caught:
            await open_remote(url, {"Authorization": "Bearer secret-value"}, on_drop=Drops())
    assert str(caught.value) == f"cannot connect to {url}: the server answered HTTP 401"
    assert caught.value.__cause__ is None and caught.value.__suppress_context__


async def test_a_silent_server_times_out() -> None:
    async def silent(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await reader.read()
        writer.close()

    server = await asyncio.start_server(silent, "127.0.0.1", 0)
    async with server:
        port = server.sockets[0].getsockname()[1]
        started = time.monotonic()
        with pytest.raises(ConnectionError) as caught:
            await open_remote(f"ws://127.0.0.1:{port}", {}, on_drop=Drops(), connect_timeout=0.3)
        assert time.monotonic() - started < 5
    assert str(caught.value) == f"cannot connect to ws://127.0.0.1:{port}: no answer within 0.3 s"


async def test_a_password_in_the_url_is_not_shown() -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    with pytest.raises(ConnectionError) as caught:
        await open_remote(f"ws://me:hunter2@127.0.0.1:{port}/acp", {}, on_drop=Drops())
    assert str(caught.value) == f"cannot connect to ws://me:***@127.0.0.1:{port}/acp: Connection refused"


async def test_a_header_value_that_cannot_be_sent_is_refused_before_connecting() -> None:
    with pytest.raises(RemoteConfigError) as caught:
        await open_remote("ws://127.0.0.1:9", {"Authorization": "secret-value\r\nX-Injected: 1"}, on_drop=Drops())
    assert "secret-value" not in str(caught.value)


def test_remote_transport_is_an_sdk_transport() -> None:
    from acp._transport import Transport

    assert issubclass(RemoteTransport, Transport)
