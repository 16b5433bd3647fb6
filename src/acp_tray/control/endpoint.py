"""Where the control socket lives, and the checks that keep it private to the user.

The socket is `control.sock` in `platformdirs.user_runtime_dir("acp-tray")` (on Linux
`$XDG_RUNTIME_DIR/acp-tray`), created with mode 0600 in a directory that must belong to the
user and be writable by nobody else; anything else is refused with the reason. The CLI checks the
directory and the socket before connecting and the peer's user id after; the daemon checks its
clients' user id (SO_PEERCRED / LOCAL_PEERCRED). Standard library
and platformdirs only: the CLI imports this.
"""

from __future__ import annotations

import os
import socket
import stat
import struct
import sys
import tempfile
from pathlib import Path

import platformdirs

APP = "acp-tray"
SOCKET_NAME = "control.sock"
LOCK_NAME = "daemon.lock"
MAX_UNIX_PATH = 100  # sun_path is 104 (macOS) or 108 (Linux) bytes with the terminating NUL


class EndpointError(Exception):
    """The control endpoint cannot be made private here: the message says why and what to do."""


def runtime_dir() -> Path:
    """Linux/BSD: `$XDG_RUNTIME_DIR/acp-tray`, else `/run/user/UID/acp-tray`, else a per-user
    directory in the temporary directory (our own check of that directory is what keeps it
    private, so platformdirs' fallback for a lax $XDG_RUNTIME_DIR is not needed). Elsewhere:
    platformdirs."""
    if sys.platform in ("win32", "darwin"):
        return Path(platformdirs.user_runtime_dir(APP))
    configured = os.environ.get("XDG_RUNTIME_DIR")
    if configured and os.path.isabs(configured):
        return Path(configured) / APP
    base = Path(f"/run/user/{os.getuid()}")
    if base.is_dir():
        return base / APP
    return Path(tempfile.gettempdir()) / f"{APP}-{os.getuid()}"


def socket_path() -> Path:
    return runtime_dir() / SOCKET_NAME


def pipe_name() -> str:
    """Windows: a per-user named pipe."""
    user = os.environ.get("USERNAME", "user")
    return rf"\\.\pipe\{APP}-{user}"


def check_private_dir(path: Path) -> None:
    """Refuse a directory another user owns or others may write to (or a symlink, or not a directory)."""
    try:
        info = path.lstat()
    except FileNotFoundError:
        raise EndpointError(f"{path} does not exist") from None
    if stat.S_ISLNK(info.st_mode) or not stat.S_ISDIR(info.st_mode):
        raise EndpointError(f"{path} is not a directory (a symlink or a file is there); remove it and start again")
    if info.st_uid != os.getuid():
        raise EndpointError(
            f"{path} belongs to user id {info.st_uid}, not to you ({os.getuid()}); "
            "acp-tray keeps its control socket only in a directory of your own. Another user may have "
            "created it first: set XDG_RUNTIME_DIR to a directory only you can write (e.g. "
            f"/run/user/{os.getuid()}), or have that user or root remove {path}"
        )
    if info.st_mode & (stat.S_IWGRP | stat.S_IWOTH):
        raise EndpointError(
            f"{path} can be written by others (mode {stat.S_IMODE(info.st_mode):o}); "
            f"run `chmod 700 {path}` or remove it, then start again"
        )


def check_socket(path: Path) -> None:
    """Before connecting (the CLI): the directory and the socket must be the person's own."""
    check_private_dir(path.parent)
    try:
        info = path.lstat()
    except FileNotFoundError:
        return  # nothing listens: the connect says so
    if not stat.S_ISSOCK(info.st_mode):
        raise EndpointError(f"{path} is not a socket; remove it, then start acp-tray again")
    if info.st_uid != os.getuid():
        raise EndpointError(f"{path} belongs to user id {info.st_uid}, not to you ({os.getuid()}); not talking to it")


def peer_uid(sock: socket.socket) -> int | None:
    """The user id of the process at the other end of a Unix socket (None: the platform cannot say)."""
    if hasattr(socket, "SO_PEERCRED"):  # Linux: struct ucred {pid, uid, gid}
        credentials = sock.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, struct.calcsize("3i"))
        return int(struct.unpack("3i", credentials)[1])
    if sys.platform == "darwin" or "bsd" in sys.platform:  # LOCAL_PEERCRED: struct xucred {version, uid, ...}
        credentials = sock.getsockopt(0, 0x001, struct.calcsize("2I"))
        return int(struct.unpack("2I", credentials[: struct.calcsize("2I")])[1])
    return None


def untrusted_peer(sock: socket.socket) -> str | None:
    """Why the process at the other end is not to be trusted (another user), or None."""
    try:
        uid = peer_uid(sock)
    except OSError:
        return None
    if uid is None or uid == os.getuid():
        return None
    return f"the process at the other end runs as user id {uid}, not as you ({os.getuid()})"


def prepare_runtime_dir() -> Path:
    """Create the private runtime directory if needed, check it (POSIX), and return it."""
    directory = runtime_dir()
    if not directory.exists() and not directory.is_symlink():
        try:
            directory.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
            directory.mkdir(mode=0o700)
        except OSError as exc:
            raise EndpointError(f"cannot create {directory}: {exc.strerror or exc}") from None
    if sys.platform != "win32":
        check_private_dir(directory)
    return directory


def prepare_socket_path() -> Path:
    """The socket path in the checked runtime directory."""
    path = prepare_runtime_dir() / SOCKET_NAME
    if len(os.fsencode(path)) > MAX_UNIX_PATH:
        raise EndpointError(f"the socket path {path} is too long for a Unix socket; set a shorter $XDG_RUNTIME_DIR")
    return path


def socket_answers(path: Path) -> bool:
    """Whether a daemon is listening on `path` (a file left by a crash does not answer)."""
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as probe:
        probe.settimeout(1.0)
        try:
            probe.connect(str(path))
        except OSError:
            return False
    return True
