"""Items 9-11 and 13 of the security review: the control endpoint stays bounded and answers,
whatever a client sends or fails to read, against a real daemon."""

from __future__ import annotations

import contextlib
import json
import socket
import sys
import threading
from pathlib import Path

import pytest

from acp_tray.agents.approvals import MAX_PENDING_PER_AGENT
from acp_tray.control.endpoint import socket_path
from acp_tray.control.server import MAX_CONNECTIONS, READ_TIMEOUT
from acp_tray.files import paths
from tests.support.agents import scripted_command, session_agent_table
from tests.support.config import write_config
from tests.support.control_socket import raw_request
from tests.support.daemons import DaemonProcess, cli, rss_kib
from tests.support.waiting import until


def log_text() -> str:
    path = paths.log_file()
    return path.read_text(errors="replace") if path.exists() else ""


def start_demo(daemons: list[DaemonProcess]) -> DaemonProcess:
    daemon = DaemonProcess("run", "--headless")
    daemons.append(daemon)
    daemon.wait_for_line("connected")
    return daemon


def test_a_deeply_nested_request_gets_a_clear_error(isolated_dirs: Path, daemons: list[DaemonProcess]) -> None:
    daemon = start_demo(daemons)
    depth = 100_000
    reply = raw_request(b'{"v":1,"op":"status","args":{"x":' + b"[" * depth + b"]" * depth + b"}}\n")
    assert json.loads(reply) == {"v": 1, "ok": False, "error": "nested too deeply", "code": "bad_request"}
    assert raw_request(b'{"v":1,"op":"status","args":{}}\n').startswith(b'{"v":1,"ok":true')
    assert daemon.stop() == 0
    assert "Traceback" not in daemon.stderr_text()


def session_agent_config() -> None:
    write_config(session_agent_table("sa"))


def test_a_client_that_stops_reading_a_stream_costs_a_bounded_buffer(
    isolated_dirs: Path, daemons: list[DaemonProcess]
) -> None:
    session_agent_config()
    daemon = DaemonProcess("run", "--headless")
    daemons.append(daemon)
    daemon.wait_for_line("sa  connected")
    before = rss_kib(daemon.proc.pid)
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)  # a reader that is suspended
        sock.connect(str(socket_path()))
        sock.sendall(json.dumps({"v": 1, "op": "prompt", "args": {"agent": "sa", "text": "flood 64"}}).encode() + b"\n")
        until(lambda: not json.loads(cli("status", "--json").stdout)["agents"][0]["busy"], 120, "the turn to end")
        grown = rss_kib(daemon.proc.pid) - before
        sock.settimeout(30)
        data = b""
        while chunk := sock.recv(1 << 20):
            data += chunk
    events = [json.loads(line) for line in data.splitlines()]
    assert grown < 24 * 1024, f"the daemon grew by {grown} kB for a 64 MB reply nobody read"
    assert [e["event"] for e in events if e.get("event") == "dropped"] == ["dropped"]
    assert events[-1]["ok"] and events[-1]["result"]["stop_reason"] == "end_turn"
    assert daemon.stop() == 0


def test_a_flood_of_permission_requests_is_capped_and_status_stays_small(
    isolated_dirs: Path, daemons: list[DaemonProcess]
) -> None:
    steps = [
        {
            "raw": json.dumps(
                {
                    "jsonrpc": "2.0",
                    "id": 5000 + n,
                    "method": "session/request_permission",
                    "params": {
                        "sessionId": "scripted-1",
                        "toolCall": {"toolCallId": f"t{n}", "title": "y" * 20_000},
                        "options": [{"optionId": "ok", "name": "Allow", "kind": "allow_once"}],
                    },
                }
            )
        }
        for n in range(500)
    ]
    steps_file = isolated_dirs / "steps.json"
    steps_file.write_text(json.dumps(steps))
    agent_log = isolated_dirs / "agent.log"
    config = paths.config_file()
    config.parent.mkdir(parents=True)
    config.write_text(
        f'notifier = "console"\n[agents.x]\ncommand = {json.dumps(scripted_command())}\n'
        f"env = {{ SCRIPTED_AGENT_STEPS_FILE = {json.dumps(str(steps_file))}, "
        f"SCRIPTED_AGENT_LOG = {json.dumps(str(agent_log))} }}\n"
    )
    daemon = DaemonProcess("run", "--headless")
    daemons.append(daemon)

    def answers() -> list[dict[str, object]]:
        lines = agent_log.read_text().splitlines() if agent_log.exists() else []
        return [json.loads(line)["received"] for line in lines if '"result"' in line]

    until(lambda: len(answers()) >= 500 - MAX_PENDING_PER_AGENT, 60, "the excess answered")
    assert all(a["result"] == {"outcome": {"outcome": "cancelled"}} for a in answers())
    status = cli("status", "--json")
    assert len(json.loads(status.stdout)["approvals"]) == MAX_PENDING_PER_AGENT
    assert len(status.stdout) < 100_000
    assert cli("approve", "1").returncode == 0  # the person can still answer the ones waiting
    assert daemon.stop() == 0
    log_text = paths.log_file().read_text()
    assert log_text.count("further ones are answered 'cancelled'") == 1


def test_idle_and_half_sent_requests_are_let_go_and_connections_capped(
    isolated_dirs: Path, daemons: list[DaemonProcess]
) -> None:
    daemon = start_demo(daemons)
    idle = []
    for n in range(MAX_CONNECTIONS):
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        sock.connect(str(socket_path()))
        if n % 2:
            sock.sendall(b'{"v":1,"op":"sta')  # half a request
        idle.append(sock)
    try:
        until(lambda: b'"code":"busy"' in raw_request(b'{"v":1,"op":"status","args":{}}\n'), what="busy")
        for sock in idle:  # each let go after READ_TIMEOUT with a reply saying why
            sock.settimeout(READ_TIMEOUT + 10)
            assert json.loads(sock.recv(4096))["code"] == "timeout"
            assert sock.recv(4096) == b""
    finally:
        for sock in idle:
            sock.close()
    assert raw_request(b'{"v":1,"op":"status","args":{}}\n').startswith(b'{"v":1,"ok":true')
    assert daemon.stop() == 0
    said = paths.log_file().read_text().count("control connections at once")
    assert said == 1


def test_out_of_descriptors_one_warning_and_the_daemon_recovers(
    isolated_dirs: Path, daemons: list[DaemonProcess]
) -> None:
    limited = ["prlimit", "--nofile=64:64", sys.executable, "-m", "acp_tray"]
    daemon = DaemonProcess("run", "--headless", program=limited)
    daemons.append(daemon)
    daemon.wait_for_line("connected")
    clients = []
    try:
        for _ in range(90):  # more than the daemon can hold: the rest wait in the backlog
            sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            sock.connect(str(socket_path()))
            clients.append(sock)
        until(lambda: "cannot accept control connections for now" in log_text(), what="the warning")
        for sock in clients:  # every one is served in the end (a timeout reply), none is left hanging
            sock.settimeout(4 * READ_TIMEOUT + 20)
            assert json.loads(sock.recv(4096))["code"] == "timeout"
    finally:
        for sock in clients:
            sock.close()
    assert raw_request(b'{"v":1,"op":"status","args":{}}\n').startswith(b'{"v":1,"ok":true')
    assert daemon.stop() == 0
    assert log_text().count("cannot accept control connections for now") == 1
    assert "out of system resource" not in daemon.stderr_text()


def test_a_daemon_that_does_not_answer_in_time_gets_a_clear_error_not_a_traceback(
    isolated_dirs: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Something listens on the control socket and never answers (a daemon stuck on a request):
    each command says so in one line and exits 1 when the wait runs out (30 s; 0.5 s here)."""
    from acp_tray import cli
    from acp_tray.control import client
    from acp_tray.files.private import make_dir

    defaults = client.request.__kwdefaults__
    assert defaults is not None
    monkeypatch.setitem(defaults, "timeout", 0.5)
    path = socket_path()
    make_dir(path.parent)
    connections: list[socket.socket] = []
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as silent:
        silent.bind(str(path))
        silent.listen(8)

        def accept() -> None:
            with contextlib.suppress(OSError):
                while True:
                    connections.append(silent.accept()[0])  # read nothing, answer nothing

        threading.Thread(target=accept, daemon=True).start()
        for command in (["status"], ["agents", "list"], ["sessions"]):
            assert cli.main(command) == 1, command
            err = capsys.readouterr().err
            assert f"acp-tray did not answer `{client_op(command)}` within 0.5 s" in err, err
            assert "Traceback" not in err and "TimeoutError" not in err
    for connection in connections:
        connection.close()


def client_op(command: list[str]) -> str:
    return {"status": "status", "agents": "agents.list", "sessions": "sessions"}[command[0]]
