"""Whose is the other end of a loopback TCP connection to the window: on Linux, the user id that owns
the peer's socket (the kernel's socket diagnostics, the same answer `ss -e` gives; /proc/net/tcp
when those are not there). The window serves only its own user, so a connection from any other
user's socket is closed before a byte of it is read.

Elsewhere the owner is not looked up (None): on Windows and macOS the window's key and session are
what keep another local user out (the README says so)."""

from __future__ import annotations

import errno
import os
import socket
import struct
import sys

NETLINK_SOCK_DIAG = 4
SOCK_DIAG_BY_FAMILY = 20
NLM_F_REQUEST = 1
NLMSG_ERROR = 2
ALL_STATES = 0xFFFFFFFF
NO_COOKIE = 0xFFFFFFFF
HEADER = struct.Struct("=IHHII")  # struct nlmsghdr: length, type, flags, sequence, port id
# struct inet_diag_req_v2: family, protocol, extensions, pad, states; then struct inet_diag_sockid:
# source and destination port (network order), source and destination address (16 bytes each,
# network order), interface, cookie (two words)
REQUEST = struct.Struct("=BBBxI")
PORTS = struct.Struct(">HH")
TAIL = struct.Struct("=III")
UID_AT = HEADER.size + 4 + 48 + 12  # struct inet_diag_msg: 4 bytes, the sockid, expires/rqueue/wqueue, uid
Address = tuple[str, int]


class UnknownOwnerError(Exception):
    """The owner of the peer's socket could not be found: the message says why."""


def owner(peer: Address, local: Address) -> int | None:
    """The user id owning the socket at `peer` connected to our `local` (both IPv4 on this host);
    None where the platform cannot say; UnknownOwnerError on Linux when no such socket is found."""
    if not sys.platform.startswith("linux"):
        return None
    try:
        return _asked(peer, local)
    except OSError as exc:
        if exc.errno == errno.ENOENT:
            raise UnknownOwnerError(f"no socket at {peer[0]}:{peer[1]} (it closed)") from None
    return _listed(peer, local)  # no socket diagnostics in this kernel: the table, read whole


def _asked(peer: Address, local: Address) -> int:
    """The kernel's socket diagnostics, asked for exactly this one socket (no walk over the others)."""
    body = b"".join(
        (
            REQUEST.pack(socket.AF_INET, socket.IPPROTO_TCP, 0, ALL_STATES),
            PORTS.pack(peer[1], local[1]),
            socket.inet_aton(peer[0]).ljust(16, b"\0"),
            socket.inet_aton(local[0]).ljust(16, b"\0"),
            TAIL.pack(0, NO_COOKIE, NO_COOKIE),  # any interface, no cookie
        )
    )
    with socket.socket(socket.AF_NETLINK, socket.SOCK_DGRAM, NETLINK_SOCK_DIAG) as diag:
        diag.settimeout(1.0)  # the kernel answers at once; never a wait in the window's loop
        diag.sendto(HEADER.pack(HEADER.size + len(body), SOCK_DIAG_BY_FAMILY, NLM_F_REQUEST, 1, 0) + body, (0, 0))
        reply = diag.recv(65536)
    kind = HEADER.unpack_from(reply)[1] if len(reply) >= HEADER.size + 4 else None
    if kind == NLMSG_ERROR:
        code = -struct.unpack_from("=i", reply, HEADER.size)[0]
        raise OSError(code, os.strerror(code))
    if kind != SOCK_DIAG_BY_FAMILY or len(reply) < UID_AT + 4:
        raise OSError(errno.EPROTO, "an answer from the socket diagnostics that is not a socket's")
    return int(struct.unpack_from("=I", reply, UID_AT)[0])


def _hex(address: Address) -> bytes:
    """An address as /proc/net/tcp writes it: the address word in host order, then the port."""
    word = struct.unpack("=I", socket.inet_aton(address[0]))[0]
    return f"{word:08X}:{address[1]:04X}".encode()


def _listed(peer: Address, local: Address) -> int:
    """/proc/net/tcp: the line whose local address is the peer's and remote address ours (the byte
    search runs over the table at C speed; only that line is split)."""
    try:
        with open("/proc/net/tcp", "rb") as table:
            text = table.read()
    except OSError as exc:
        raise UnknownOwnerError(f"cannot read /proc/net/tcp: {exc.strerror or exc}") from None
    at = text.find(b" " + _hex(peer) + b" " + _hex(local) + b" ")
    if at < 0:
        raise UnknownOwnerError(f"no socket at {peer[0]}:{peer[1]} (it closed)")
    fields = text[at : text.find(b"\n", at)].split()  # local, remote, state, queues, timer, retransmits, uid
    if len(fields) < 7 or not fields[6].isdigit():
        raise UnknownOwnerError(f"an unexpected line in /proc/net/tcp: {fields[:7]!r}")
    return int(fields[6])
