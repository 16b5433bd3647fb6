"""The bundled demo agent: a real ACP v1 agent over stdio, built on the SDK's `Connection`.

After its first `session/new` it sends a short series of notices of every severity (known and an
extension), but only if the client advertised `clientCapabilities.session.notices`; otherwise
it falls back to `agent_message_chunk` text, as the notice spec describes. It answers
`session/prompt` with a short reply streamed in chunks; a prompt that mentions deleting asks
for permission first (so approvals can be tried: `acp-tray prompt demo "delete the build folder"`).
Run it with `acp-tray demo-agent` or `python -m acp_tray.demo_agent`.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
from typing import Any

from acp import RequestError
from acp.connection import Connection
from acp.stdio import stdio_streams

from acp_tray import __version__
from acp_tray.demo_ws import listen_address, serve_websocket

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


def _permission(session_id: str) -> dict[str, Any]:
    return {
        "sessionId": session_id,
        "toolCall": {"toolCallId": "demo-delete", "title": "Delete the build/ folder", "kind": "delete"},
        "options": [
            {"optionId": "allow", "name": "Allow once", "kind": "allow_once"},
            {"optionId": "reject", "name": "Reject", "kind": "reject_once"},
        ],
    }


class DemoAgent:
    def __init__(self, interval: float) -> None:
        self.interval = interval
        self.connection: Connection | None = None
        self._notices = False
        self._sessions = 0
        self._tasks: set[asyncio.Task[None]] = set()

    async def _update(self, session_id: str, update: dict[str, Any]) -> None:
        assert self.connection is not None
        await self.connection.send_notification("session/update", {"sessionId": session_id, "update": update})

    async def _announce(self, session_id: str) -> None:
        for notice in DEMO_NOTICES:
            await asyncio.sleep(self.interval)
            if self._notices:
                await self._update(session_id, {"sessionUpdate": "notice", **notice})
            else:
                text = f"[{notice['severity']}] {notice['title']}"
                if notice["description"]:
                    text += f": {notice['description']}"
                await self._update(session_id, _chunk(text + "\n"))

    async def _reply(self, session_id: str, text: str) -> None:
        parts = ["Hello from the acp-tray demo agent. ", f"You said: {text[:200]!r}. "]
        if "delete" in text.lower():
            assert self.connection is not None
            answer = await self.connection.send_request("session/request_permission", _permission(session_id))
            outcome = answer.get("outcome", {}) if isinstance(answer, dict) else {}
            chosen = outcome.get("optionId") if outcome.get("outcome") == "selected" else None
            parts.append(
                "You allowed it: (pretend) deleted build/. "
                if chosen == "allow"
                else "Not allowed, so nothing was deleted. "
            )
        parts.append("I only demonstrate notices, approvals and streaming.\n")
        for part in parts:
            await self._update(session_id, _chunk(part))

    async def __call__(self, method: str, params: Any, is_notification: bool) -> Any:
        if method == "initialize":
            self._notices = client_supports_notices(params)
            return {
                "protocolVersion": 1,
                "agentInfo": {"name": "acp-tray-demo", "title": "acp-tray demo agent", "version": __version__},
                "agentCapabilities": {"loadSession": False},
                "authMethods": [],
            }
        if method == "session/new":
            self._sessions += 1
            session_id = f"demo-session-{self._sessions}"
            if self._sessions == 1:  # the demo series once per connection, not once per session
                task = asyncio.create_task(self._announce(session_id))
                self._tasks.add(task)
                task.add_done_callback(self._tasks.discard)
            return {"sessionId": session_id}
        if method == "session/prompt":
            prompt_session = params.get("sessionId") if isinstance(params, dict) else None
            if isinstance(prompt_session, str):
                await self._reply(prompt_session, _prompt_text(params))
            return {"stopReason": "end_turn"}
        if is_notification:
            return None  # session/cancel and anything else: nothing to do
        raise RequestError.method_not_found(method)


async def serve(interval: float) -> None:
    reader, writer = await stdio_streams()
    agent = DemoAgent(interval)
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
    args = parser.parse_args(argv)
    with contextlib.suppress(KeyboardInterrupt):
        if args.listen is None:
            asyncio.run(serve(args.interval))
        else:
            host, port = args.listen
            asyncio.run(serve_websocket(host, port, lambda: DemoAgent(args.interval)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
