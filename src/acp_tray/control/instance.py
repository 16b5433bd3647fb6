"""One daemon per user: an exclusive lock on `daemon.lock` in the private runtime directory.

The OS releases the lock when the process ends, however it ends, so a lock file left by a
crashed daemon is simply taken over (and said so). The file holds the owner's pid, for the
message a second `acp-tray run` prints.
"""

from __future__ import annotations

import contextlib
import os
import sys
from pathlib import Path


class AlreadyRunningError(Exception):
    def __init__(self, pid: int | None) -> None:
        super().__init__(f"acp-tray is already running (pid {pid})" if pid else "acp-tray is already running")
        self.pid = pid


def _lock(fd: int) -> bool:
    """Take the lock without waiting; False when another process holds it."""
    try:
        if sys.platform == "win32":  # pragma: no cover - Windows only
            import msvcrt

            msvcrt.locking(fd, msvcrt.LK_NBLCK, 1)
        else:
            import fcntl

            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        return False
    return True


def _pid_in(text: str) -> int | None:
    try:
        return int(text.strip().split()[0])
    except (ValueError, IndexError):
        return None


def lock_held(path: Path) -> bool:
    """Does a live process hold the lock at `path`? (Probed without waiting; a missing file: no.)"""
    try:
        fd = os.open(path, os.O_RDWR)
    except FileNotFoundError:
        return False
    except OSError:
        return True  # cannot tell: assume the owner is still there
    try:
        if not _lock(fd):
            return True
        if sys.platform == "win32":  # pragma: no cover - Windows only
            import msvcrt

            with contextlib.suppress(OSError):
                msvcrt.locking(fd, msvcrt.LK_UNLCK, 1)
        return False
    finally:
        os.close(fd)


class InstanceLock:
    def __init__(self, path: Path) -> None:
        self.path = path
        self._fd: int | None = None

    def acquire(self) -> str | None:
        """Hold the lock for this process. Returns a note when a stale lock was taken over;
        raises AlreadyRunningError when a live daemon holds it."""
        fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o600)
        if not _lock(fd):
            owner = _pid_in(os.read(fd, 64).decode("ascii", "replace"))
            os.close(fd)
            raise AlreadyRunningError(owner)
        previous = _pid_in(os.read(fd, 64).decode("ascii", "replace"))
        os.lseek(fd, 0, os.SEEK_SET)
        os.ftruncate(fd, 0)
        os.write(fd, f"{os.getpid()}\n".encode())
        self._fd = fd
        if previous is not None and previous != os.getpid():
            return f"took over the lock left by a daemon that did not stop cleanly (pid {previous})"
        return None

    def release(self) -> None:
        if self._fd is None:
            return
        with contextlib.suppress(OSError):
            self.path.unlink()
        os.close(self._fd)
        self._fd = None
