"""Item 5 of the security review, with a real second local user: the CLI talks only to a daemon
of the same user (socket directory, socket and peer uid checked before anything is sent), the
daemon serves only its own user, and `run` says what to do when another user took the directory.

The user is created (useradd) when the tests run as root, and removed after; otherwise skipped
(tests/support/other_user.py).
"""

from __future__ import annotations

import socket
import subprocess
import time
from pathlib import Path

from tests.support.daemons import Daemon, cli, cli_env
from tests.support.other_user import OtherUser

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
    other_user: OtherUser, shared_runtime: Path, procs: list[subprocess.Popen[str]], daemons: list[Daemon]
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
    run = Daemon("run", "--headless", env=cli_env())
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


def test_daemon_serves_only_its_own_user(other_user: OtherUser, shared_runtime: Path, daemons: list[Daemon]) -> None:
    daemon = Daemon("run", "--headless", env=cli_env())
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


# the other user's attempts on the window: read where it is, then ask it for pages (loopback TCP is
# open to every local user: the key, which only the person can read, is what keeps them out)
WINDOW_PROBE = r"""
import http.client, json, sys
record, port = sys.argv[1], int(sys.argv[2])
try:
    open(record).read()
    print("read the record")
except PermissionError:
    print("cannot read the record")
for path in ("/overview", "/history", "/events?page=overview", "/open?key=guess"):
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    connection.request("GET", path, headers={"Host": f"127.0.0.1:{port}"})
    answer = connection.getresponse()
    print(path, answer.status, "sa" in answer.read().decode())
"""


def test_another_user_cannot_read_the_windows_key_nor_use_the_window(
    other_user: OtherUser, shared_runtime: Path, daemons: list[Daemon], tmp_path: Path
) -> None:
    from acp_tray.control.endpoint import runtime_dir
    from tests.support.agents import session_agent_table
    from tests.support.config import write_config
    from tests.support.daemons import start
    from tests.support.window import window_process

    write_config(session_agent_table("sa", tmp_path / "sa.log"))
    start(daemons, "sa")
    with window_process() as window:
        assert window.request("GET", "/overview").status == 200  # the person, with the key, gets in
        record = runtime_dir() / "window.json"
        assert record.parent.parent == shared_runtime  # a base every user can reach, as /tmp is
        record.parent.chmod(0o711)  # its folder made passable: the record's own mode must keep it
        probe = other_user.run("-c", WINDOW_PROBE, str(record), str(window.port), stdout=subprocess.PIPE)
        said, _ = probe.communicate(timeout=60)
        lines = said.strip().splitlines()
        assert lines[0] == "cannot read the record"
        assert lines[1:] == [
            "/overview 403 False",
            "/history 403 False",
            "/events?page=overview 403 False",
            "/open?key=guess 403 False",
        ]
