"""A stand-in for Anthropic's model API on 127.0.0.1, for running the real Claude agent
(claude-agent-acp, which runs Claude Code) offline. Point it here with
`ANTHROPIC_BASE_URL=<url>` and any `ANTHROPIC_API_KEY`.

What it implements: `POST /v1/messages` (Claude Code adds `?beta=true`), streamed as server-sent
events (`message_start`, `content_block_start`/`_delta`/`_stop`, `message_delta`, `message_stop`)
when the request asks `stream: true` and as one JSON message otherwise (Claude Code asks again
without streaming when a stream fails); `POST /v1/messages/count_tokens`, `GET /v1/models` and
`HEAD /api/hello`.
Each message reports its token counts (1,200 in, 30 out) as the API does, in `message_start`
and `message_delta`.
Anything else is answered 404 in the API's error shape. Every request is kept (`requests`), so a
test can see what reached "the model". With `refuse_credentials` set, every request is answered 401
`authentication_error`, as the real API answers a bad key.

The replies are scripted by the text of the last user message (the person's prompt, or a
subagent's task; not the `<system-reminder>` blocks Claude Code adds to it):
- a request that asks for structured output (Claude Code naming a session): `{"title": ...}`;
- a request offering no tools (Claude Code suggesting what to type next): the text below;
- a last message holding a `tool_result`: a final text quoting it (`tool_result: ...`, with
  `(error)` when it was an error), so a test sees what the tool answered;
- "run bash": a `Bash` tool use, `touch fake-model-was-here.txt`;
- "ask me": an `AskUserQuestion` tool use (one question, "Which colour should the button be?",
  choices Red and Blue);
- "subagent": an `Agent` tool use (Claude Code's subagent tool; older versions call it `Task`)
  whose task is "run bash", so the child does the Bash call above;
- anything else: the text `fake model says hello`.
"""

from __future__ import annotations

import contextlib
import json
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from itertools import count
from typing import Any

MODEL_ID = "claude-fake-1"
HELLO = "fake model says hello"
TOUCHED = "fake-model-was-here.txt"
QUESTION = "Which colour should the button be?"
CHOICES = ("Red", "Blue")
INPUT_TOKENS, OUTPUT_TOKENS = 1200, 30

Block = dict[str, Any]
_ids = count(1)


@dataclass
class Request:
    method: str
    path: str
    body: dict[str, Any]

    def last_user_content(self) -> list[Block]:
        """The blocks of the last user message (a plain string is one text block)."""
        users = [m for m in self.body.get("messages", []) if m.get("role") == "user"]
        if not users:
            return []
        content = users[-1].get("content")
        return [{"type": "text", "text": content}] if isinstance(content, str) else list(content or [])

    def prompt(self) -> str:
        """The last user message's own text: its text blocks but the reminders Claude Code adds."""
        texts = (b.get("text", "") for b in self.last_user_content() if b.get("type") == "text")
        return "\n".join(t for t in texts if not t.lstrip().startswith("<system-reminder>"))

    def tool_results(self) -> list[Block]:
        return [b for b in self.last_user_content() if b.get("type") == "tool_result"]


@dataclass
class FakeAnthropic:
    """The server's state: where it listens, what it was asked, and whether it refuses the key."""

    port: int = 0
    requests: list[Request] = field(default_factory=list)
    refuse_credentials: bool = False

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def messages(self) -> list[Request]:
        return [r for r in list(self.requests) if r.path.split("?")[0] == "/v1/messages"]

    def tool_results(self) -> list[str]:
        """The text of every tool result that reached the model, in order."""
        return [_text(b.get("content")) for r in self.messages() for b in r.tool_results()]


def _text(content: Any) -> str:
    if isinstance(content, str):
        return content
    return "".join(b.get("text", "") for b in content or [] if isinstance(b, dict))


def _tool_use(name: str, tool_input: dict[str, Any]) -> Block:
    return {"type": "tool_use", "id": f"toolu_fake{next(_ids):04d}", "name": name, "input": tool_input}


def reply_to(request: Request) -> list[Block]:
    """The content of the model's answer to `request` (see the module's docstring)."""
    if "format" in request.body.get("output_config", {}):
        return [{"type": "text", "text": json.dumps({"title": "Fake session"})}]
    if not request.body.get("tools"):  # not a turn (a suggestion of what to type next): no tool to use
        return [{"type": "text", "text": HELLO}]
    if results := request.tool_results():
        said = " | ".join(("(error) " if b.get("is_error") else "") + _text(b.get("content")) for b in results)
        return [{"type": "text", "text": f"tool_result: {said}"}]
    prompt = request.prompt().lower()
    if "run bash" in prompt:
        return [_tool_use("Bash", {"command": f"touch {TOUCHED}", "description": "Leave a mark"})]
    if "ask me" in prompt:
        options = [{"label": c, "description": f"A {c.lower()} button"} for c in CHOICES]
        question = {"question": QUESTION, "header": "Colour", "options": options, "multiSelect": False}
        return [_tool_use("AskUserQuestion", {"questions": [question]})]
    if "subagent" in prompt:
        tools = {t.get("name") for t in request.body.get("tools", [])}
        task = {"description": "Leave a mark", "prompt": "run bash", "subagent_type": "general-purpose"}
        return [_tool_use("Task" if "Agent" not in tools else "Agent", {**task, "run_in_background": False})]
    return [{"type": "text", "text": HELLO}]


def _message(content: list[Block]) -> dict[str, Any]:
    stop = "tool_use" if any(b["type"] == "tool_use" for b in content) else "end_turn"
    usage = {
        "input_tokens": INPUT_TOKENS,
        "output_tokens": OUTPUT_TOKENS,
        "cache_creation_input_tokens": 0,
        "cache_read_input_tokens": 0,
    }
    return {
        "id": f"msg_fake{next(_ids):04d}", "type": "message", "role": "assistant", "model": MODEL_ID,
        "content": content, "stop_reason": stop, "stop_sequence": None, "usage": usage,
    }  # fmt: skip


def _events(message: dict[str, Any]) -> Iterator[tuple[str, dict[str, Any]]]:
    """The server-sent events that stream `message`."""
    yield "message_start", {"type": "message_start", "message": {**message, "content": [], "stop_reason": None}}
    for index, block in enumerate(message["content"]):
        if block["type"] == "text":
            start, delta = {**block, "text": ""}, {"type": "text_delta", "text": block["text"]}
        else:
            partial = json.dumps(block["input"])
            start, delta = {**block, "input": {}}, {"type": "input_json_delta", "partial_json": partial}
        yield "content_block_start", {"type": "content_block_start", "index": index, "content_block": start}
        yield "content_block_delta", {"type": "content_block_delta", "index": index, "delta": delta}
        yield "content_block_stop", {"type": "content_block_stop", "index": index}
    ending = {"stop_reason": message["stop_reason"], "stop_sequence": None}
    yield "message_delta", {"type": "message_delta", "delta": ending, "usage": {"output_tokens": OUTPUT_TOKENS}}
    yield "message_stop", {"type": "message_stop"}


class _Handler(BaseHTTPRequestHandler):
    api: FakeAnthropic  # set on the subclass made for each server

    def log_message(self, format: str, *args: Any) -> None:
        """Quiet: what was asked is kept in `requests`."""

    def _answer(self, status: int, body: dict[str, Any]) -> None:
        data = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def _error(self, status: int, kind: str, message: str) -> None:
        self._answer(status, {"type": "error", "error": {"type": kind, "message": message}})

    def _serve(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length) if length else b""
        body = json.loads(raw) if raw.strip() else {}
        request = Request(self.command, self.path, body if isinstance(body, dict) else {})
        self.api.requests.append(request)
        route = (self.command, self.path.split("?")[0])
        if self.api.refuse_credentials:
            self._error(401, "authentication_error", "invalid x-api-key")
        elif route == ("POST", "/v1/messages"):
            self._reply(request)
        elif route == ("POST", "/v1/messages/count_tokens"):
            self._answer(200, {"input_tokens": 10})
        elif route == ("GET", "/v1/models"):
            model = {"type": "model", "id": MODEL_ID, "display_name": "Fake", "created_at": "2026-01-01T00:00:00Z"}
            self._answer(200, {"data": [model], "has_more": False, "first_id": MODEL_ID, "last_id": MODEL_ID})
        else:
            self._error(404, "not_found_error", f"no {self.command} {self.path} here")

    def _reply(self, request: Request) -> None:
        message = _message(reply_to(request))
        if not request.body.get("stream"):
            self._answer(200, message)
            return
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Cache-Control", "no-cache")
        self.end_headers()
        for event, data in _events(message):
            self.wfile.write(f"event: {event}\ndata: {json.dumps(data)}\n\n".encode())
        self.wfile.flush()
        self.close_connection = True

    def do_GET(self) -> None:
        self._serve()

    def do_POST(self) -> None:
        self._serve()

    def do_HEAD(self) -> None:
        """Claude Code's check that the API is reachable (`HEAD /api/hello`, made only when its
        nonessential traffic is not turned off): kept, and answered with no body."""
        self.api.requests.append(Request(self.command, self.path, {}))
        self.send_response(200 if self.path == "/api/hello" else 404)
        self.send_header("Content-Length", "0")
        self.end_headers()


@contextlib.contextmanager
def fake_anthropic(refuse_credentials: bool = False) -> Iterator[FakeAnthropic]:
    """The stand-in, listening on a free port of 127.0.0.1 until the block ends."""
    api = FakeAnthropic(refuse_credentials=refuse_credentials)
    handler = type("Handler", (_Handler,), {"api": api})
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    api.port = server.server_address[1]
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield api
    finally:
        server.shutdown()
        server.server_close()
        thread.join()
