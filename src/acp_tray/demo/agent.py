"""The bundled demo agent: a real ACP v1 agent over stdio, built on the SDK's `Connection`.

After its first `session/new` it sends a short series of notices of every severity (known and an
extension), but only if the client advertised `clientCapabilities.session.notices`; otherwise
it falls back to `agent_message_chunk` text, as the notice spec describes. Given a file to mark it
(`--introduced FILE`, or $ACP_TRAY_DEMO_INTRODUCED: acp-tray gives one), it does so only while the
file is missing and then creates it: it introduces itself once, later starts are quiet; a prompt
that mentions notices shows them again (`acp-tray prompt demo "show the notices"`). It answers
`session/prompt` with a short reply streamed in chunks; a prompt that mentions deleting asks
for permission after its first words (so approvals can be tried, and the reply is seen to stream
while the turn waits: `acp-tray prompt demo "delete the build folder"`).
Run it with `acp-tray demo-agent` or `python -m acp_tray.demo.agent`.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import stat
import sys
from collections.abc import Coroutine
from functools import partial
from pathlib import Path
from typing import Any, TextIO

from acp import RequestError
from acp.connection import Connection
from acp.stdio import stdio_streams

from acp_tray import __version__
from acp_tray.demo import INTRODUCED_ENV
from acp_tray.demo.ws import listen_address, serve_websocket
from acp_tray.files.atomic import write_atomically

INTERVAL_ENV = "ACP_TRAY_DEMO_INTERVAL"

DEMO_NOTICES: list[dict[str, Any]] = [
    {
        "severity": "info",
        "title": "Workspace indexed",
        "description": "1,284 files indexed in 2.1 s. Ready for prompts.",
    },
    {
        "severity": "warning",
        "title": "Using default settings",
        "description": "No project settings file was found in the workspace, so built-in defaults apply.",
    },
    {
        "severity": "error",
        "title": "Optional integration unavailable",
        "description": "The issue tracker integration could not sign in (token expired). Work continues without it.",
    },
    {
        "severity": "_demo.tip",
        "title": "Extension severities are shown generically",
        "description": None,
    },
]


def client_supports_notices(initialize_params: object) -> bool:
    """v1: `clientCapabilities.session.notices` present as an object (omitted or null: no)."""
    if not isinstance(initialize_params, dict):
        return False
    capabilities = initialize_params.get("clientCapabilities")
    session = capabilities.get("session") if isinstance(capabilities, dict) else None
    return isinstance(session, dict) and isinstance(session.get("notices"), dict)


def _chunk(text: str) -> dict[str, Any]:
    return {"sessionUpdate": "agent_message_chunk", "content": {"type": "text", "text": text}}


def _prompt_text(params: object) -> str:
    blocks = params.get("prompt") if isinstance(params, dict) else None
    texts = [b["text"] for b in blocks or [] if isinstance(b, dict) and isinstance(b.get("text"), str)]
    return " ".join(texts)


def _permission(session_id: str, version: int) -> dict[str, Any]:
    options = [
        {"optionId": "allow", "name": "Allow once", "kind": "allow_once"},
        {"optionId": "reject", "name": "Reject", "kind": "reject_once"},
    ]
    tool_call = {"toolCallId": "demo-delete", "title": "Delete the build/ folder", "kind": "delete"}
    if version == 2:  # the request's own title; the tool call it is about as its subject
        subject = {"type": "tool_call", "toolCall": tool_call}
        return {"sessionId": session_id, "title": "Delete the build/ folder", "subject": subject, "options": options}
    return {"sessionId": session_id, "toolCall": tool_call, "options": options}


INTRODUCED_TEXT = (
    "The acp-tray demo agent has introduced itself: its notices are shown on its first start only.\n"
    "Delete this file to see them again at its next start.\n"
)


class DemoAgent:
    def __init__(self, interval: float, protocol: int | None = None, introduced: Path | None = None) -> None:
        self.interval = interval
        self.protocol = protocol  # None: answer what the client offers (1 or 2); else only this one
        self.introduced = introduced  # the mark of its first start (None: it introduces itself every time)
        self.version = 1  # chosen at initialize
        self._messages = 0
        self._cancelled: set[str] = set()
        self.connection: Connection | None = None
        self._notices = False
        self._sessions = 0
        self._announced = False
        self._tasks: set[asyncio.Task[None]] = set()

    def _spawn(self, work: Coroutine[Any, Any, None]) -> None:
        task = asyncio.create_task(work)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _update(self, session_id: str, update: dict[str, Any]) -> None:
        assert self.connection is not None
        await self.connection.send_notification("session/update", {"sessionId": session_id, "update": update})

    def _announce_once(self, session_id: str) -> None:
        """The demo series once per connection, on its first session, new or resumed; with an
        `introduced` mark, only while there is none yet (then it is made): quiet at each login."""
        if self._announced:
            return
        self._announced = True
        if self.introduced is not None and self.introduced.exists():
            return
        self._spawn(self._announce(session_id, mark=True))

    async def _announce(self, session_id: str, *, mark: bool = False) -> None:
        await self._notices_of(session_id)
        if mark and self.introduced is not None:  # once all were sent: an interrupted series is shown again
            try:
                await asyncio.to_thread(write_atomically, self.introduced, INTRODUCED_TEXT)
            except OSError as exc:
                print(f"acp-tray demo: cannot mark {self.introduced}: {exc.strerror or exc}", file=sys.stderr)

    async def _notices_of(self, session_id: str) -> None:
        for notice in DEMO_NOTICES:
            await asyncio.sleep(self.interval)
            if self._notices:
                await self._update(session_id, {"sessionUpdate": "notice", **notice})
            else:
                text = f"[{notice['severity']}] {notice['title']}"
                if notice["description"]:
                    text += f": {notice['description']}"
                await self._update(session_id, _chunk(text + "\n"))

    def _message_id(self) -> str:
        self._messages += 1
        return f"demo-message-{self._messages}"

    async def _say(self, session_id: str, text: str, message_id: str) -> None:
        chunk = _chunk(text)
        if self.version == 2:
            chunk["messageId"] = message_id  # v2 chunks belong to a message
        await self._update(session_id, chunk)

    async def _reply(self, session_id: str, text: str) -> None:
        message_id = self._message_id()
        # the first words before any approval: the reply is seen to stream while the turn waits
        for part in ("Hello from the acp-tray demo agent. ", f"You said: {text[:200]!r}. "):
            await self._say(session_id, part, message_id)
        if "delete" in text.lower():
            await self._say(session_id, await self._ask_to_delete(session_id), message_id)
        if "notice" in text.lower():  # asked for: the series again, whatever the mark says
            await self._say(session_id, "Here are my notices again. ", message_id)
            self._spawn(self._notices_of(session_id))
        await self._say(session_id, "I only demonstrate notices, approvals and streaming.\n", message_id)

    async def _ask_to_delete(self, session_id: str) -> str:
        """The permission request, and what the reply says about its answer."""
        assert self.connection is not None
        if self.version == 2:
            await self._state(session_id, "requires_action")
        answer = await self.connection.send_request("session/request_permission", _permission(session_id, self.version))
        if self.version == 2:
            await self._state(session_id, "running")
        outcome = answer.get("outcome", {}) if isinstance(answer, dict) else {}
        if outcome.get("outcome") == "cancelled":  # ACP: the client cancelled the turn (its session/cancel may follow)
            self._cancelled.add(session_id)
        chosen = outcome.get("optionId") if outcome.get("outcome") == "selected" else None
        return (
            "You allowed it: (pretend) deleted build/. "
            if chosen == "allow"
            else "Not allowed, so nothing was deleted. "
        )

    async def _state(self, session_id: str, state: str, stop_reason: str | None = None) -> None:
        update: dict[str, Any] = {"sessionUpdate": "state_update", "state": state}
        if stop_reason is not None:
            update["stopReason"] = stop_reason
        await self._update(session_id, update)

    async def _turn_v2(self, session_id: str, text: str, user_message: str) -> None:
        """v2: the prompt was acknowledged; the work is reported with state updates."""
        self._cancelled.discard(session_id)
        await self._update(session_id, {"sessionUpdate": "user_message", "messageId": user_message})
        await self._state(session_id, "running")
        await self._reply(session_id, text)
        await self._state(session_id, "idle", "cancelled" if session_id in self._cancelled else "end_turn")

    def _initialize(self, params: object) -> dict[str, Any]:
        offered = params.get("protocolVersion") if isinstance(params, dict) else None
        offered = offered if type(offered) is int else 1
        if self.protocol is None:
            self.version = 2 if offered >= 2 else 1
        elif self.protocol == 2 and offered < 2:
            raise RequestError(-32022, "Unsupported protocol version", {"supported": [2]})
        else:
            self.version = self.protocol
        info = {"name": "acp-tray-demo", "title": "acp-tray demo agent", "version": __version__}
        if self.version == 2:  # no notice capability in v2: notices are always understood
            self._notices = True
            return {"protocolVersion": 2, "info": info, "capabilities": {}, "authMethods": []}
        # v1: the client's capabilities, read from the v1 fields (present in a v2 offer from acp-tray too)
        self._notices = client_supports_notices(params)
        return {
            "protocolVersion": 1,
            "agentInfo": info,
            "agentCapabilities": {"loadSession": False},
            "authMethods": [],
        }

    async def __call__(self, method: str, params: Any, is_notification: bool) -> Any:
        if method == "initialize":
            return self._initialize(params)
        if method == "session/new":
            self._sessions += 1
            session_id = f"demo-session-{self._sessions}"
            self._announce_once(session_id)
            return {"sessionId": session_id}
        if method == "session/prompt":
            prompt_session = params.get("sessionId") if isinstance(params, dict) else None
            if not isinstance(prompt_session, str):
                raise RequestError.invalid_params({"details": "sessionId is required"})
            if self.version == 2:  # acknowledge now; the turn runs on and ends with an idle state
                user_message = self._message_id()
                self._spawn(self._turn_v2(prompt_session, _prompt_text(params), user_message))
                return {"messageId": user_message}
            self._cancelled.discard(prompt_session)
            await self._reply(prompt_session, _prompt_text(params))
            return {"stopReason": "cancelled" if prompt_session in self._cancelled else "end_turn"}
        if method in ("session/resume", "session/close") and self.version == 2:
            resumed = params.get("sessionId") if isinstance(params, dict) else None
            if method == "session/resume" and isinstance(resumed, str):
                self._announce_once(resumed)
            return {}
        if method == "session/cancel" and isinstance(params, dict):
            self._cancelled.add(str(params.get("sessionId")))
            return None
        if is_notification:
            return None
        raise RequestError.method_not_found(method)


def _pollable(stream: TextIO) -> bool:
    """Can the event loop watch this stream (a pipe, socket or terminal)? A regular file or
    /dev/null cannot be: `demo-agent > file` or `< /dev/null`."""
    try:
        fd = stream.fileno()
        mode = os.fstat(fd).st_mode
    except (OSError, ValueError):
        return False
    return stat.S_ISFIFO(mode) or stat.S_ISSOCK(mode) or os.isatty(fd)


async def _stdio() -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
    if sys.platform == "win32" or (_pollable(sys.stdin) and _pollable(sys.stdout)):
        return await stdio_streams()
    # the SDK's own threaded stdio (what it uses on Windows) works with files too
    from acp.stdio import _windows_stdio_streams

    return await _windows_stdio_streams(asyncio.get_running_loop())


async def serve(interval: float, protocol: int | None = None, introduced: Path | None = None) -> None:
    reader, writer = await _stdio()
    agent = DemoAgent(interval, protocol, introduced)
    agent.connection = Connection(agent, writer, reader, listening=False)
    await agent.connection.main_loop()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="acp-tray demo-agent", description=__doc__.splitlines()[0])
    parser.add_argument(
        "--interval",
        type=float,
        default=float(os.environ.get(INTERVAL_ENV, "1.5")),
        help=f"seconds between demo notices (default 1.5, or ${INTERVAL_ENV})",
    )
    parser.add_argument(
        "--listen",
        metavar="HOST:PORT",
        type=listen_address,
        help="serve ACP over WebSocket instead of stdio (port 0: any free port); prints 'listening on ws://HOST:PORT'",
    )
    parser.add_argument(
        "--protocol",
        type=int,
        choices=(1, 2),
        default=None,
        help="speak only this ACP version (default: answer what the client offers, 1 or 2)",
    )
    parser.add_argument(
        "--introduced",
        metavar="FILE",
        type=Path,
        default=os.environ.get(INTRODUCED_ENV) or None,
        help=(
            "send the demo notices only while FILE is missing, then create it: once, not at every start "
            f"(default ${INTRODUCED_ENV}; neither: on every connection)"
        ),
    )
    args = parser.parse_args(argv)
    with contextlib.suppress(KeyboardInterrupt):
        if args.listen is None:
            asyncio.run(serve(args.interval, args.protocol, args.introduced))
        else:
            host, port = args.listen
            asyncio.run(serve_websocket(host, port, partial(DemoAgent, args.interval, args.protocol, args.introduced)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
