"""`acp-tray ui --port N`: the window served at a port the person chooses, so that an SSH
port-forward from another machine (`ssh -L N:127.0.0.1:N host`) reaches it with the Host its
door accepts; a port in use is refused in one plain line."""

from __future__ import annotations

import contextlib
import http.client
import socket
import threading
from collections.abc import Iterator
from urllib.parse import urlsplit

from tests.support.daemons import DaemonProcess, cli
from tests.support.window import end, headless_daemon, open_window


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@contextlib.contextmanager
def forward(listen: tuple[str, int], to: int) -> Iterator[None]:
    """What `ssh -L` does: a listening port whose connections are carried, bytes unchanged, to
    127.0.0.1:`to` (here on another loopback address of this machine, standing in for the laptop)."""
    server = socket.create_server(listen)

    def carry(source: socket.socket, sink: socket.socket) -> None:
        with contextlib.suppress(OSError):
            while data := source.recv(65536):
                sink.sendall(data)
        with contextlib.suppress(OSError):
            sink.shutdown(socket.SHUT_WR)

    def accept() -> None:
        with contextlib.suppress(OSError):
            while True:
                near, _ = server.accept()
                far = socket.create_connection(("127.0.0.1", to))
                threading.Thread(target=carry, args=(near, far), daemon=True).start()
                threading.Thread(target=carry, args=(far, near), daemon=True).start()

    threading.Thread(target=accept, daemon=True).start()
    try:
        yield
    finally:
        server.close()


def browse(address: tuple[str, int], host: str, path: str, cookie: str = "") -> http.client.HTTPResponse:
    """A GET as the person's browser sends it to http://HOST/PATH (through the forward at `address`)."""
    connection = http.client.HTTPConnection(*address, timeout=10)
    connection.request("GET", path, headers={"Host": host, **({"Cookie": cookie} if cookie else {})})
    response = connection.getresponse()
    response.read()
    return response


def test_the_window_at_a_chosen_port_works_through_a_port_forward(daemons: list[DaemonProcess]) -> None:
    headless_daemon(daemons)
    port = free_port()
    shown = cli("ui", "--no-browser", "--port", str(port))
    assert shown.returncode == 0, shown.stderr
    url = urlsplit(shown.stdout.strip())
    assert (url.hostname, url.port) == ("127.0.0.1", port)
    window = open_window()  # the next `acp-tray ui` finds it
    try:
        assert window.port == port
        # ssh -L PORT:127.0.0.1:PORT: the browser at the other end opens the printed address as is
        with forward(("127.0.0.2", port), port):
            opened = browse(("127.0.0.2", port), f"127.0.0.1:{port}", f"{url.path}?{url.query}")
            assert opened.status == 303 and opened.headers["Location"] == "/overview"
            cookie = opened.headers["Set-Cookie"].split(";")[0]
            assert browse(("127.0.0.2", port), f"127.0.0.1:{port}", "/overview", cookie).status == 200
            # a forward from another local port: the browser's Host names that port, which the door refuses
            assert browse(("127.0.0.2", port), f"127.0.0.1:{port + 1}", "/overview", cookie).status == 403
    finally:
        end(window.pid)


def test_a_running_window_elsewhere_is_left_and_a_new_one_serves_the_port(daemons: list[DaemonProcess]) -> None:
    headless_daemon(daemons)
    first = open_window()
    port = free_port()
    try:
        shown = cli("ui", "--no-browser", "--port", str(port))
        assert shown.returncode == 0, shown.stderr
        assert urlsplit(shown.stdout.strip()).port == port
        second = open_window()
        assert (second.port, second.request("GET", "/overview").status) == (port, 200)
        assert second.pid != first.pid and first.request("GET", "/overview").status == 200
        end(second.pid)
    finally:
        end(first.pid)


def test_a_port_in_use_is_refused_in_plain_words(daemons: list[DaemonProcess]) -> None:
    headless_daemon(daemons)
    with socket.create_server(("127.0.0.1", 0)) as taken:
        port = taken.getsockname()[1]
        refused = cli("ui", "--no-browser", "--port", str(port))
    assert refused.returncode == 1 and refused.stdout == ""
    assert refused.stderr.strip() == (
        f"acp-tray: cannot open the window: port {port} on 127.0.0.1 is in use: choose another with --port"
    )
    bad = cli("ui", "--no-browser", "--port", "70000")
    assert bad.returncode == 2 and "70000 is not a port: give 1 to 65535" in bad.stderr
    assert "Traceback" not in refused.stderr + bad.stderr
