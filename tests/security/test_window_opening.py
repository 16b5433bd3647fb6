"""Items 1, 2 and 4 of the security review, as they were found: the window's key in the browser's
command line (read by a second local user, created for the test), the window's cookie sent to
another server on 127.0.0.1, and a stale window record that sent `acp-tray ui`, key included, to
whatever listened on the old port (another user's server).

The browser `acp-tray ui` opens is tests/tools/staying_browser.py: it loads what it is given as a
browser does, and stays running (its command line in /proc) until the test ends it."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import quote

import pytest

from acp_tray.control.endpoint import runtime_dir
from tests.support.agents import session_agent_table
from tests.support.browser import PageFor
from tests.support.config import write_config
from tests.support.daemons import DaemonProcess, alive, cli, cli_env, start
from tests.support.other_user import OtherUser
from tests.support.waiting import until
from tests.support.web_server import serve
from tests.support.window import end, open_window, window_process

BROWSER = Path(__file__).resolve().parents[1] / "tools" / "staying_browser.py"

# the other user reads every process's command line, then uses every key it found on the window
PROBE = r"""
import http.client, json, os, re, sys
port = int(sys.argv[1])
found = {"args": [], "keys": [], "files": [], "uses": []}
for pid in os.listdir("/proc"):
    if pid == str(os.getpid()):
        continue
    try:
        argv = open(f"/proc/{pid}/cmdline", "rb").read().decode("utf-8", "replace").split("\0")
    except OSError:
        continue
    for arg in argv:
        if "127.0.0.1" in arg or arg.startswith("file:") or "key=" in arg:
            found["args"].append(arg)
        found["keys"] += re.findall(r"key=([A-Za-z0-9._~%-]+)", arg)
        if arg.startswith("file://"):
            try:
                open(arg[len("file://"):]).read()
                found["files"].append("read")
            except OSError as exc:
                found["files"].append(type(exc).__name__)

def ask(method, path, headers):
    try:
        connection = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
        connection.request(method, path, headers={"Host": f"127.0.0.1:{port}", **headers})
        answer = connection.getresponse()
        answer.read()
        return answer.status, (answer.getheader("Set-Cookie") or "").split(";")[0]
    except (OSError, http.client.HTTPException) as exc:
        return type(exc).__name__, ""

for key in found["keys"]:
    status, cookie = ask("GET", "/open?key=" + key, {})
    found["uses"].append(f"open {status}")
    for sent in [cookie, f"acp_tray_window={key}", f"acp_tray_window_{port}={key}"]:
        origin = {"Origin": f"http://127.0.0.1:{port}", "Content-Length": "0"}
        status, _ = ask("POST", "/agents/sa/stop", {"Cookie": sent, **origin})
        found["uses"].append(f"stop {status}")
print(json.dumps(found))
"""

# another user's server on a port the window once had: answers everything, keeps what it was sent
FAKE_WINDOW = r"""
import socket, sys
port, captured = int(sys.argv[1]), sys.argv[2]
listener = socket.socket()
listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
listener.bind(("127.0.0.1", port))
listener.listen(8)
print(listener.getsockname()[1], flush=True)
while True:
    connection, _ = listener.accept()
    connection.settimeout(5)
    try:
        data = connection.recv(65536)
    except OSError:
        data = b""
    with open(captured, "ab") as kept:
        kept.write(data + b"\n--\n")
    connection.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: 64\r\nConnection: close\r\n\r\n" + b"0" * 64)
    connection.close()
"""


@pytest.fixture
def browsed(tmp_path: Path) -> Iterator[Path]:
    """The staying browser's log; the browsers it records are ended after the test."""
    log = tmp_path / "browsed.log"
    yield log
    for line in log.read_text(encoding="utf-8").splitlines() if log.exists() else []:
        if line.startswith("pid "):
            with contextlib.suppress(ProcessLookupError):
                os.kill(int(line.split()[1]), signal.SIGKILL)


def _ui(browsed: Path) -> subprocess.CompletedProcess[str]:
    """`acp-tray ui` as the tray runs it, with a display and the staying browser as the person's browser."""
    browser = f"{sys.executable} {BROWSER} %s &"
    env = cli_env(BROWSER=browser, ACP_TRAY_TEST_BROWSED=str(browsed), DISPLAY=os.environ.get("DISPLAY") or ":0")
    return cli("ui", env=env)


def _loaded(browsed: Path) -> list[str]:
    lines = browsed.read_text(encoding="utf-8").splitlines() if browsed.exists() else []
    return [line for line in lines if line.startswith("loaded ")]


def _window_pids() -> set[int]:
    record = runtime_dir() / "window.json"
    return {int(json.loads(record.read_text(encoding="utf-8"))["pid"])} if record.exists() else set()


def test_another_user_reading_every_command_line_finds_no_key_and_nothing_that_opens_the_window(
    other_user: OtherUser, shared_runtime: Path, daemons: list[DaemonProcess], tmp_path: Path, browsed: Path
) -> None:
    """Item 1 of the security review."""
    write_config(session_agent_table("sa", tmp_path / "sa.log"))
    start(daemons, "sa")
    runtime_dir().chmod(0o711)  # made passable: the files' own modes must keep them
    shown = _ui(browsed)
    pids = _window_pids()
    try:
        assert shown.returncode == 0, shown.stderr
        until(lambda: len(_loaded(browsed)) == 2, what="the person's page")
        port = int(_loaded(browsed)[0].split(":")[2].split("/")[0])
        assert _loaded(browsed)[1] == f"loaded http://127.0.0.1:{port}/overview 200"
        probe = other_user.run("-c", PROBE, str(port), stdout=subprocess.PIPE)
        said, _ = probe.communicate(timeout=60)
        found = json.loads(said)
        assert (found["keys"], found["uses"]) == ([], []), found  # no key in any command line, nothing it opened
        assert any(arg.startswith("file://") for arg in found["args"]), found  # the browser's was read
        # the redirect file: not readable by another user, and gone once the browser used it
        assert found["files"] and set(found["files"]) <= {"PermissionError", "FileNotFoundError"}, found
        assert json.loads(cli("agents", "list", "--json").stdout)[0]["state"] == "connected"
        assert not list(runtime_dir().glob("open-*.html"))  # the redirect file is gone once used
    finally:
        for pid in pids:
            end(pid)


def test_a_server_on_another_local_port_gets_nothing_that_changes_the_window(
    daemons: list[DaemonProcess], tmp_path: Path, page_for: PageFor
) -> None:
    """Item 2 of the security review: the person's browser sends its cookies for 127.0.0.1 to every
    port; what another local server receives that way opens nothing and changes nothing."""
    write_config(session_agent_table("sa", tmp_path / "sa.log"))
    start(daemons, "sa")
    received: list[dict[str, str]] = []

    async def elsewhere(scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] == "http":
            received.append({name.decode(): value.decode() for name, value in scope["headers"]})
            await send({"type": "http.response.start", "status": 200, "headers": [(b"content-type", b"text/html")]})
            await send({"type": "http.response.body", "body": b"<p>another local page</p>"})

    with window_process() as window, serve(elsewhere) as other:
        page = page_for().page
        page.goto(window.url)
        assert page.url == f"http://127.0.0.1:{window.port}/overview"
        page.goto(other + "/")
        assert page.locator("p").inner_text() == "another local page"
        headers = received[0]  # the page (the browser may ask for its icon too)
        assert "cookie" in headers  # the browser sent it ...
        replayed = {"Cookie": headers["cookie"], "Origin": f"http://127.0.0.1:{window.port}"}
        stop = window.request("POST", "/agents/sa/stop", headers=replayed, cookie=False)
        assert stop.status == 403, stop.body  # ... and it changes nothing
        for value in headers.values():  # nor opens the window as a key would
            for name_value in value.split(";"):
                key = name_value.strip().partition("=")[2]
                if key:
                    assert window.request("GET", f"/open?key={quote(key)}", cookie=False).status == 403
        assert json.loads(cli("agents", "list", "--json").stdout)[0]["state"] == "connected"


def _fake_window(other_user: OtherUser, port: int, captured: Path, procs: list[subprocess.Popen[str]]) -> int:
    fake = other_user.run("-c", FAKE_WINDOW, str(port), str(captured), stdout=subprocess.PIPE)
    procs.append(fake)
    assert fake.stdout is not None
    return int(fake.stdout.readline())


def test_a_stale_record_sends_nothing_to_another_users_server_on_the_old_port(
    other_user: OtherUser,
    shared_runtime: Path,
    daemons: list[DaemonProcess],
    tmp_path: Path,
    browsed: Path,
    procs: list[subprocess.Popen[str]],
) -> None:
    """Item 4 of the security review: the window was killed (its record stayed), and another user's
    server took its port."""
    write_config(session_agent_table("sa", tmp_path / "sa.log"))
    start(daemons, "sa")
    killed = open_window()
    os.kill(killed.pid, signal.SIGKILL)
    until(lambda: not alive(killed.pid), what="the window's end")
    captured = shared_runtime / "captured"
    _fake_window(other_user, killed.port, captured, procs)
    shown = _ui(browsed)
    try:
        assert shown.returncode == 0, shown.stderr
        first = until(lambda: _loaded(browsed), what="the browser's page")[0]
        sent = captured.read_bytes() if captured.exists() else b""
        assert f"127.0.0.1:{killed.port}/" not in first and not sent, (first, sent)  # not even a connection
        until(lambda: len(_loaded(browsed)) == 2, what="the new window's page")
        assert _loaded(browsed)[1].endswith("/overview 200")  # a new window, at another port
    finally:
        for pid in _window_pids():
            end(pid)


def test_a_record_of_a_live_window_of_ours_at_another_users_port_gets_only_a_challenge(
    other_user: OtherUser,
    shared_runtime: Path,
    daemons: list[DaemonProcess],
    tmp_path: Path,
    browsed: Path,
    procs: list[subprocess.Popen[str]],
) -> None:
    """Item 4 of the security review, where the recorded process is alive and ours (its number reused,
    or a window on another port): the server at the recorded port must prove it is the window."""
    write_config(session_agent_table("sa", tmp_path / "sa.log"))
    start(daemons, "sa")
    captured = shared_runtime / "captured"
    with window_process() as window:
        port = _fake_window(other_user, 0, captured, procs)
        record = runtime_dir() / "window.json"
        forged = {"pid": window.pid, "port": port, "secret": window.secret, "key": "the-old-key"}
        record.write_text(json.dumps(forged), encoding="utf-8")
        shown = _ui(browsed)
        started = _window_pids() - {window.pid}
        try:
            assert shown.returncode == 0, shown.stderr
            first = until(lambda: _loaded(browsed), what="the browser's page")[0]
            sent = captured.read_bytes() if captured.exists() else b""
            assert f":{port}/" not in first and b"key" not in sent and window.secret.encode() not in sent, (first, sent)
            assert sent.startswith(b"GET /challenge?nonce=") and sent.count(b"\n--\n") == 1, sent
            until(lambda: len(_loaded(browsed)) == 2, what="the new window's page")
            assert _loaded(browsed)[1].endswith("/overview 200")
            assert started and json.loads(record.read_text(encoding="utf-8"))["port"] != port
        finally:
            for pid in started:
                end(pid)
