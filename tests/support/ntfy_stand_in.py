"""A stand-in of an ntfy server on 127.0.0.1, with just ntfy's API that acp-tray and the phone use:
publishing (as JSON to `/`, with an `X-Actions` header of buttons, as Apprise does; or a plain body
to `/TOPIC`, as the app's `http` action does) and following a topic (`GET /TOPIC/json?since=…`, a
chunked stream of JSON lines, as ntfy sends it). It keeps every message and request, can end the
open streams or refuse new ones for a while, and `Phone` presses a message's button by sending
exactly the request ntfy's Android app sends for an `http` action."""

from __future__ import annotations

import contextlib
import http.client
import json
import secrets
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlsplit

APP_AGENT = "ntfy/1.16.0 (fdroid; Android 14; SDK 34)"  # what the app's requests say they are


@dataclass
class Request:
    method: str
    path: str
    headers: dict[str, str]
    body: str


@dataclass
class NtfyStandIn:
    port: int = 0
    messages: list[dict[str, Any]] = field(default_factory=list)
    requests: list[Request] = field(default_factory=list)
    subscriptions: list[str] = field(default_factory=list)  # the topic of each stream opened (refused too)
    refusing: bool = False  # new streams are answered 503, as a server restarting would
    changed: threading.Condition = field(default_factory=threading.Condition)
    generation: int = 0  # bumped to end every open stream

    def on(self, topic: str) -> list[dict[str, Any]]:
        with self.changed:
            return [m for m in self.messages if m["topic"] == topic]

    def publish(
        self, topic: str, message: str, title: str = "", actions: list[dict[str, Any]] | None = None
    ) -> dict[str, Any]:
        entry = {
            "id": secrets.token_urlsafe(9), "time": int(time.time()), "event": "message", "topic": topic,
            "message": message, **({"title": title} if title else {}), **({"actions": actions} if actions else {}),
        }  # fmt: skip
        with self.changed:
            self.messages.append(entry)
            self.changed.notify_all()
        return entry

    def end_streams(self) -> None:
        """The server ends every open stream (as a restart or a proxy's timeout does)."""
        with self.changed:
            self.generation += 1
            self.changed.notify_all()

    def streams_open(self, topic: str) -> int:
        return len([t for t in self.subscriptions if t == topic])

    def after(self, topic: str, since: str) -> list[dict[str, Any]]:
        with self.changed:
            mine = [m for m in self.messages if m["topic"] == topic]
        ids = [m["id"] for m in mine]
        if since in ids:
            return mine[ids.index(since) + 1 :]
        if since.isdigit():
            return [m for m in mine if m["time"] >= int(since)]
        return mine if since == "all" else []


def _actions(header: str | None) -> list[dict[str, Any]] | None:
    if not header:
        return None
    parsed = json.loads(header)  # acp-tray sends ntfy's JSON form
    assert isinstance(parsed, list) and len(parsed) <= 3, "ntfy takes at most three actions"
    return parsed


class _Server(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self, service: NtfyStandIn) -> None:
        super().__init__(("127.0.0.1", 0), _Handler)
        self.service = service


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server: _Server

    def _body(self) -> str:
        return self.rfile.read(int(self.headers.get("Content-Length") or 0)).decode("utf-8", "replace")

    def _answer(self, status: int, payload: dict[str, Any]) -> None:
        data = json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_POST(self) -> None:
        self._publish()

    def do_PUT(self) -> None:
        self._publish()

    def _publish(self) -> None:
        service, body = self.server.service, self._body()
        service.requests.append(Request(self.command, self.path, dict(self.headers), body))
        path = urlsplit(self.path).path.strip("/")
        actions = _actions(self.headers.get("X-Actions"))
        if not path:  # JSON publish (Apprise)
            data = json.loads(body)
            entry = service.publish(data["topic"], data.get("message", ""), data.get("title", ""), actions)
        else:  # a plain body to /TOPIC (the app's http action)
            entry = service.publish(path, body, self.headers.get("X-Title", ""), actions)
        self._answer(200, entry)

    def do_GET(self) -> None:
        service, parts = self.server.service, urlsplit(self.path)
        topic, _, kind = parts.path.strip("/").partition("/")
        service.requests.append(Request("GET", self.path, dict(self.headers), ""))
        service.subscriptions.append(topic)
        if kind != "json" or service.refusing:
            self._answer(503 if service.refusing else 404, {"code": 50301, "error": "not now"})
            return
        since = parse_qs(parts.query).get("since", [""])[0]
        self.send_response(200)
        self.send_header("Content-Type", "application/x-ndjson; charset=utf-8")
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()
        self._stream(topic, since)

    def _stream(self, topic: str, since: str) -> None:
        service = self.server.service
        generation = service.generation
        sent = {m["id"] for m in service.after(topic, "0")} - {m["id"] for m in service.after(topic, since)}
        self.close_connection = True
        with contextlib.suppress(OSError):  # the daemon went away
            self._chunk({"id": "open", "time": int(time.time()), "event": "open", "topic": topic})
            while service.generation == generation:
                for message in service.after(topic, "all"):
                    if message["id"] not in sent:
                        sent.add(message["id"])
                        self._chunk(message)
                with service.changed:
                    if service.generation == generation:
                        service.changed.wait(0.5)
            self.wfile.write(b"0\r\n\r\n")
            self.wfile.flush()

    def _chunk(self, payload: dict[str, Any]) -> None:
        line = (json.dumps(payload) + "\n").encode()
        self.wfile.write(f"{len(line):x}\r\n".encode() + line + b"\r\n")
        self.wfile.flush()

    def log_message(self, format: str, *args: Any) -> None:
        pass


@contextlib.contextmanager
def ntfy_stand_in() -> Iterator[NtfyStandIn]:
    service = NtfyStandIn()
    server = _Server(service)
    service.port = server.server_address[1]
    thread = threading.Thread(target=server.serve_forever, name="ntfy-stand-in", daemon=True)
    thread.start()
    try:
        yield service
    finally:
        service.end_streams()
        server.shutdown()
        server.server_close()


class Phone:
    """The ntfy app on a phone: presses a button of a message it received, sending what the app
    sends for an `http` action (its method, POST by default; its headers; its body, "" by default;
    no Content-Type; the app's User-Agent)."""

    def press(self, message: dict[str, Any], label: str) -> int:
        action = next(a for a in message.get("actions", []) if a["label"] == label)
        assert action["action"] == "http"
        return self.send(action)

    def send(self, action: dict[str, Any]) -> int:
        url = urlsplit(action["url"])
        connection = http.client.HTTPConnection(url.hostname or "", url.port or 80, timeout=30)
        headers = {"User-Agent": APP_AGENT, "Accept-Encoding": "gzip", "Connection": "Keep-Alive"}
        headers.update(action.get("headers") or {})
        body = (action.get("body") or "").encode()
        try:
            connection.request(action.get("method") or "POST", url.path or "/", body=body, headers=headers)
            return connection.getresponse().status
        finally:
            connection.close()
