"""The control socket spoken to byte by byte, for tests of what the daemon does with any input."""

from __future__ import annotations

import socket

from acp_tray.control.endpoint import socket_path


def raw_request(data: bytes, timeout: float = 20.0) -> bytes:
    """Send `data` as is on a fresh connection; everything the daemon answers until it closes."""
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
        sock.settimeout(timeout)
        sock.connect(str(socket_path()))
        sock.sendall(data)
        chunks = []
        try:
            while chunk := sock.recv(65536):
                chunks.append(chunk)
        except ConnectionResetError:  # closed at once (busy) before it had read what was sent
            pass
    return b"".join(chunks)
