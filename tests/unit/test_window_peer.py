"""Who owns the other end of a loopback connection (window/peer.py), on real sockets: the kernel's
socket diagnostics and the /proc/net/tcp table agree on this process's own user, a socket that is
gone is an error that says so, and elsewhere than Linux the owner is not looked up."""

from __future__ import annotations

import os
import socket
import sys
from collections.abc import Iterator

import pytest

from acp_tray.window import peer

linux_only = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="socket owners: Linux")


@pytest.fixture
def connected() -> Iterator[tuple[socket.socket, socket.socket]]:
    """A listener's accepted end and the client's end of one loopback connection."""
    with socket.create_server(("127.0.0.1", 0)) as listener:
        client = socket.create_connection(listener.getsockname())
        accepted, _ = listener.accept()
        yield accepted, client
        accepted.close()
        client.close()


@linux_only
def test_both_ways_of_asking_name_this_processs_user(connected: tuple[socket.socket, socket.socket]) -> None:
    accepted, _ = connected
    peer_address, local = accepted.getpeername(), accepted.getsockname()
    assert peer.owner(peer_address, local) == os.getuid()
    assert peer._asked(peer_address, local) == os.getuid()
    assert peer._listed(peer_address, local) == os.getuid()


@linux_only
def test_a_socket_that_is_not_there_is_an_error_in_plain_words(connected: tuple[socket.socket, socket.socket]) -> None:
    accepted, _ = connected
    with socket.socket() as unused:
        unused.bind(("127.0.0.1", 0))
        nobody = unused.getsockname()
    with pytest.raises(peer.UnknownOwnerError, match=r"no socket at 127\.0\.0\.1:"):
        peer.owner(nobody, accepted.getsockname())
    with pytest.raises(peer.UnknownOwnerError, match=r"no socket at 127\.0\.0\.1:"):
        peer._listed(nobody, accepted.getsockname())


@pytest.mark.skipif(sys.platform.startswith("linux"), reason="the platforms where no owner is looked up")
def test_elsewhere_the_owner_is_not_looked_up(connected: tuple[socket.socket, socket.socket]) -> None:
    accepted, _ = connected
    assert peer.owner(accepted.getpeername(), accepted.getsockname()) is None
