"""The window's server holds up against requests that never end: a chunked body over the cap is
refused with 413 (never a 500 and a traceback in window.log), and a request head that is not
complete within a few seconds is closed, so half-sent requests cannot hold its descriptors.
Item 5 and 7 of the security review, against the real `acp-tray ui` server of a real daemon."""

from __future__ import annotations

import json
import socket
from collections.abc import Iterator
from pathlib import Path

import pytest

from acp_tray.files import paths
from acp_tray.window.guard import MAX_BODY
from tests.support.agents import session_agent_table
from tests.support.config import write_config
from tests.support.daemons import DaemonProcess, cli, start
from tests.support.window import Window, window_process

CLOSED_WITHIN = 30.0  # seconds a test waits for the server to close a connection (it does after a few)


def chunked(body: bytes, size: int = 8192) -> bytes:
    """`body` as HTTP/1.1 chunks: no Content-Length says beforehand how long it is."""
    parts = [b"%x\r\n%s\r\n" % (len(body[at : at + size]), body[at : at + size]) for at in range(0, len(body), size)]
    return b"".join(parts) + b"0\r\n\r\n"


@pytest.fixture
def window(daemons: list[DaemonProcess], tmp_path: Path) -> Iterator[Window]:
    """The real window of a real daemon with one agent."""
    write_config(session_agent_table("sa", tmp_path / "sa.log"))
    start(daemons, "sa")
    with window_process() as running:
        yield running


def test_a_chunked_body_over_the_cap_is_refused_in_plain_words_without_a_traceback(window: Window) -> None:
    big = b"mode=on&value=" + b"x" * (MAX_BODY + 6000)
    refused = window.request("POST", "/dnd", headers={"Transfer-Encoding": "chunked"}, body=chunked(big))
    assert refused.status == 413, refused.body
    assert "too large" in refused.body and "64 KB" in refused.body
    assert json.loads(cli("status", "--json").stdout)["dnd"] == "off"  # nothing was done

    small = window.request("POST", "/dnd", headers={"Transfer-Encoding": "chunked"}, body=chunked(b"mode=on", 3))
    assert small.status == 200 and "Do not disturb" in small.body  # a chunked form within the cap is read whole
    assert json.loads(cli("status", "--json").stdout)["dnd"] != "off"
    log = paths.log_file().with_name("window.log").read_text(encoding="utf-8")
    assert "Traceback" not in log and "Exception in ASGI application" not in log, log


def test_a_request_head_not_sent_in_time_is_closed_and_the_window_still_serves(window: Window) -> None:
    half = socket.create_connection(("127.0.0.1", window.port), timeout=CLOSED_WITHIN)
    silent = socket.create_connection(("127.0.0.1", window.port), timeout=CLOSED_WITHIN)
    try:
        half.sendall(f"GET /overview HTTP/1.1\r\nHost: 127.0.0.1:{window.port}\r\nX-Slow: ".encode())
        assert half.recv(1024) == b""  # closed by the server, nothing answered
        assert silent.recv(1024) == b""  # a connection that says nothing at all, the same
    finally:
        half.close()
        silent.close()
    assert window.request("GET", "/overview").status == 200
