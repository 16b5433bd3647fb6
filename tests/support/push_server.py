"""A local HTTP server standing in for a push service (what Apprise's json:// and ntfy:// URLs post
to): it keeps each request it receives, and answers 500 under /refuse and nothing for a while
under /hang, as a service that is down or stuck would."""

from __future__ import annotations

import contextlib
import json
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

HANG = 5.0  # seconds a request under /hang waits before its answer (longer than the client's read timeout)


@dataclass
class Received:
    path: str
    headers: dict[str, str]
    body: str

    def json(self) -> Any:
        return json.loads(self.body)


@dataclass
class PushService:
    port: int
    received: list[Received] = field(default_factory=list)

    def under(self, prefix: str) -> list[Received]:
        return [r for r in list(self.received) if r.path.startswith(prefix)]

    def titles(self, prefix: str) -> list[str]:
        """The titles pushed to `prefix`: Apprise's JSON (json://) or ntfy's (ntfy://) body."""
        return [str(r.json().get("title")) for r in self.under(prefix)]


@contextlib.contextmanager
def push_service() -> Iterator[PushService]:
    service = PushService(0)

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            body = self.rfile.read(length).decode("utf-8", "replace")
            service.received.append(Received(self.path, dict(self.headers), body))
            if self.path.startswith("/hang"):
                time.sleep(HANG)
            status = 500 if self.path.startswith("/refuse") else 200
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            reply = b'{"id":"x1","event":"message"}'
            self.send_header("Content-Length", str(len(reply)))
            self.end_headers()
            with contextlib.suppress(OSError):  # a client that gave up waiting
                self.wfile.write(reply)

        def log_message(self, format: str, *args: Any) -> None:
            pass  # the test reads `received`, not stderr

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    service.port = server.server_address[1]
    thread = threading.Thread(target=server.serve_forever, name="push-service", daemon=True)
    thread.start()
    try:
        yield service
    finally:
        server.shutdown()
        server.server_close()
