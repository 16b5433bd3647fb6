"""Items 9-11 and 13 of the security review: the control endpoint stays bounded and answers,
whatever a client sends or fails to read, against a real daemon."""

from __future__ import annotations

import json
import socket
from pathlib import Path

from acp_tray.control.endpoint import socket_path
from tests.daemon_process import Daemon


def raw_request(data: bytes, timeout: float = 20.0) -> bytes:
    """Send `data` as is on a fresh connection; everything the daemon answers until it closes."""
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
        sock.settimeout(timeout)
        sock.connect(str(socket_path()))
        sock.sendall(data)
        chunks = []
        while chunk := sock.recv(65536):
            chunks.append(chunk)
    return b"".join(chunks)


def start_demo(daemons: list[Daemon]) -> Daemon:
    daemon = Daemon("run", "--headless")
    daemons.append(daemon)
    daemon.wait_for_line("connected")
    return daemon


def test_a_deeply_nested_request_gets_a_clear_error(isolated_dirs: Path, daemons: list[Daemon]) -> None:
    daemon = start_demo(daemons)
    depth = 100_000
    reply = raw_request(b'{"v":1,"op":"status","args":{"x":' + b"[" * depth + b"]" * depth + b"}}\n")
    assert json.loads(reply) == {"v": 1, "ok": False, "error": "nested too deeply", "code": "bad_request"}
    assert raw_request(b'{"v":1,"op":"status","args":{}}\n').startswith(b'{"v":1,"ok":true')
    assert daemon.stop() == 0
    assert "Traceback" not in daemon.stderr_text()
