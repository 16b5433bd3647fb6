"""Item 5 of the security review, with a real second local user: the CLI talks only to a daemon
of the same user (socket directory, socket and peer uid checked before anything is sent), the
daemon serves only its own user, and `run` says what to do when another user took the directory.
The window, on loopback TCP, serves only its own user too: another user's connections are closed
unread, however many.

The user is created (useradd) when the tests run as root, and removed after; otherwise skipped
(tests/support/other_user.py).
"""

from __future__ import annotations

import contextlib
import os
import resource
import socket
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

from acp_tray.control.endpoint import runtime_dir
from acp_tray.files import paths
from tests.support.agents import session_agent_table
from tests.support.config import write_config
from tests.support.daemons import DaemonProcess, cli, cli_env, start
from tests.support.other_user import OtherUser
from tests.support.window import window_process

# a fake daemon run by the other user: answers every request with a made-up status and keeps
# what it was sent (the prompt an impostor wants to capture)
FAKE_DAEMON = r"""
import json, os, socket, sys
sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM, fileno=int(sys.argv[2])) if len(sys.argv) > 2 else None
if sock is None:
    os.makedirs(os.path.dirname(sys.argv[1]), mode=0o700, exist_ok=True)
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    sock.bind(sys.argv[1])
    os.chmod(sys.argv[1], 0o666)
sock.listen(8)
print("listening", flush=True)
while True:
    conn, _ = sock.accept()
    data = conn.recv(65536)
    with open(sys.argv[1] + ".captured", "ab") as f:
        f.write(data)
    conn.sendall(b'{"v":1,"ok":true,"result":{"version":"fake","pid":1,"uptime":1,"dnd":"off","unread":0,'
                 b'"agents":[],"approvals":[]}}\n')
    conn.close()
"""


def _started(proc: subprocess.Popen[str]) -> None:
    assert proc.stdout is not None
    assert proc.stdout.readline().strip() == "listening"


def test_cli_refuses_a_socket_directory_another_user_created(
    other_user: OtherUser, shared_runtime: Path, procs: list[subprocess.Popen[str]], daemons: list[DaemonProcess]
) -> None:
    sock_path = shared_runtime / "acp-tray" / "control.sock"
    fake = other_user.run("-c", FAKE_DAEMON, str(sock_path), stdout=subprocess.PIPE)
    procs.append(fake)
    _started(fake)
    status = cli("status")
    assert status.returncode != 0 and "fake" not in status.stdout
    assert f"belongs to user id {other_user.uid}" in status.stderr and "Traceback" not in status.stderr
    prompt = cli("prompt", "demo", "my secret plan")
    assert prompt.returncode != 0
    assert not Path(str(sock_path) + ".captured").exists(), "nothing may be sent to another user's socket"
    run = DaemonProcess("run", "--headless", env=cli_env())
    daemons.append(run)
    assert run.proc.wait(30) != 0
    said = run.stderr_text()
    assert f"belongs to user id {other_user.uid}" in said and "XDG_RUNTIME_DIR" in said and "Traceback" not in said


def test_cli_checks_the_peer_uid_before_sending(
    other_user: OtherUser, shared_runtime: Path, procs: list[subprocess.Popen[str]]
) -> None:
    directory = shared_runtime / "acp-tray"
    directory.mkdir(mode=0o700)  # the person's own directory and socket file ...
    sock_path = directory / "control.sock"
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listener.bind(str(sock_path))
    # ... but the process listening on it is another user's (listen() after it became that user)
    fake = other_user.run(
        "-c", FAKE_DAEMON, str(sock_path), str(listener.fileno()), stdout=subprocess.PIPE, pass_fds=[listener.fileno()]
    )
    listener.close()
    procs.append(fake)
    _started(fake)
    status = cli("status")
    assert status.returncode != 0 and "fake" not in status.stdout
    assert f"runs as user id {other_user.uid}" in status.stderr
    time.sleep(0.3)
    captured = Path(str(sock_path) + ".captured")
    assert not captured.exists() or captured.read_bytes() == b"", "nothing may be sent before the peer is checked"


def test_daemon_serves_only_its_own_user(
    other_user: OtherUser, shared_runtime: Path, daemons: list[DaemonProcess]
) -> None:
    daemon = DaemonProcess("run", "--headless", env=cli_env())
    daemons.append(daemon)
    daemon.wait_for_line("control:")
    directory = shared_runtime / "acp-tray"
    directory.chmod(0o711)  # modes loosened by mistake: the uid check still holds
    (directory / "control.sock").chmod(0o666)
    client = other_user.run(
        "-c",
        "import socket,sys\n"
        "s=socket.socket(socket.AF_UNIX);s.connect(sys.argv[1])\n"
        "try:\n"
        '    s.sendall(b\'{"v":1,"op":"status","args":{}}\\n\')\n'
        "    print(repr(s.recv(65536)))\n"
        "except (BrokenPipeError, ConnectionResetError): print(repr(b''))",  # closed before or after it sent
        str(directory / "control.sock"),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    out, err = client.communicate(timeout=30)
    assert out.strip() == "b''", (out, err)  # closed without a reply
    assert cli("status").returncode == 0  # the person's own CLI is served
    assert daemon.stop() == 0
    assert f"refused a control connection: the process at the other end runs as user id {other_user.uid}" in (
        daemon.stderr_text()
    )


# the other user's attempts on the window: read where it is, then ask it for pages, without the key
# and with it (as read from a process list): loopback TCP is open to every local user, and the
# window closes a connection from another user's socket before reading a byte of it
WINDOW_PROBE = r"""
import http.client, sys
record, port, key = sys.argv[1], int(sys.argv[2]), sys.argv[3]
try:
    open(record).read()
    print("read the record")
except PermissionError:
    print("cannot read the record")
asks = [("/overview", ""), ("/events?page=overview", ""), ("/open?key=" + key, "")]
asks.append(("/history", "acp_tray_window=" + key))
for number, (path, cookie) in enumerate(asks):
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    try:
        connection.request("GET", path, headers={"Host": f"127.0.0.1:{port}", "Cookie": cookie})
        answer = connection.getresponse()
        print(number, answer.status, "sa" in answer.read().decode())
    except ConnectionError:  # reset, or closed with no answer
        print(number, "closed")
"""


def test_another_user_cannot_read_the_windows_key_nor_use_the_window_even_with_the_key(
    other_user: OtherUser, shared_runtime: Path, daemons: list[DaemonProcess], tmp_path: Path
) -> None:
    """Items 1, 2 and 5 of the security review, for another user: the window's connections are its own user's."""
    write_config(session_agent_table("sa", tmp_path / "sa.log"))
    start(daemons, "sa")
    with window_process() as window:
        assert window.request("GET", "/overview").status == 200  # the person, with the window's session, gets in
        record = runtime_dir() / "window.json"
        assert record.parent.parent == shared_runtime  # a base every user can reach, as /tmp is
        record.parent.chmod(0o711)  # its folder made passable: the record's own mode must keep it
        probe = other_user.run(
            "-c", WINDOW_PROBE, str(record), str(window.port), "a-key-read-somewhere", stdout=subprocess.PIPE
        )
        said, _ = probe.communicate(timeout=60)
        lines = said.strip().splitlines()
        assert lines[0] == "cannot read the record"
        assert lines[1:] == ["0 closed", "1 closed", "2 closed", "3 closed"]  # not a byte of HTTP, key or not
        assert window.request("GET", "/overview").status == 200  # the person is still served
    log = paths.log_file().with_name("window.log").read_text(encoding="utf-8")
    refusal = f"refused a connection: it comes from user id {other_user.uid}, not from you ({os.getuid()})"
    assert log.count(refusal) == 1, log  # said once, however many connections


# the other user holds the window's connections open with request heads it never finishes
FLOOD = r"""
import resource, socket, sys
port, count = int(sys.argv[1]), int(sys.argv[2])
hard = resource.getrlimit(resource.RLIMIT_NOFILE)[1]
resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
head = f"GET /overview HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n".encode()
held = []
for _ in range(count):
    connection = socket.socket()
    connection.settimeout(3)
    try:
        connection.connect(("127.0.0.1", port))
        connection.sendall(head)
    except OSError:
        connection.close()
        continue
    held.append(connection)
print("sent", count, flush=True)
sys.stdin.read()  # held until the test is done
"""
DESKTOP_FILES = 1024  # the soft open-files limit a desktop session gives its processes


@contextlib.contextmanager
def open_files(soft: int) -> Iterator[None]:
    """This process, and what it starts meanwhile, with `soft` as its open-files limit."""
    before, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))
    try:
        yield
    finally:
        resource.setrlimit(resource.RLIMIT_NOFILE, (before, hard))


def test_another_users_half_sent_requests_do_not_lock_the_person_out(
    other_user: OtherUser, daemons: list[DaemonProcess], tmp_path: Path, procs: list[subprocess.Popen[str]]
) -> None:
    """Item 5 of the security review: about 1,020 half-sent requests from another user, no key."""
    write_config(session_agent_table("sa", tmp_path / "sa.log"))
    start(daemons, "sa")
    with open_files(DESKTOP_FILES), window_process() as window:
        flood = other_user.run(
            "-c", FLOOD, str(window.port), "1020", stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE
        )
        procs.append(flood)
        assert flood.stdout is not None and flood.stderr is not None
        assert flood.stdout.readline().strip() == "sent 1020", flood.stderr.read()
        page = window.request("GET", "/overview")  # while the other user still holds what it opened
        assert page.status == 200 and 'data-agent="sa"' in page.body
        limits = Path(f"/proc/{window.pid}/limits").read_text(encoding="utf-8")
        soft, hard = next(line.split()[3:5] for line in limits.splitlines() if line.startswith("Max open files"))
        assert soft == hard  # the window may hold as many descriptors as the system allows it
