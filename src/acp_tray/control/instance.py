"""One daemon per user: an exclusive lock on `daemon.lock` in the private runtime directory.

The OS releases the lock when the process ends, however it ends, so a lock file left by a
crashed daemon is simply taken over (and said so). The file holds the owner's pid, for the
message a second `acp-tray run` prints. On Windows the lock is a byte range far past the pid
(`LockFile` ranges are mandatory there: a locked byte cannot be read by another process), and
the file is removed after it is closed (an open file cannot be deleted there).
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


WINDOWS_LOCK_OFFSET = 1 << 20  # the locked byte: past the end of the file, never over the pid


def _lock(fd: int) -> bool:
    """Take the lock without waiting; False when another process holds it."""
    try:
        if sys.platform == "win32":  # pragma: no cover - Windows only
            import msvcrt

            os.lseek(fd, WINDOWS_LOCK_OFFSET, os.SEEK_SET)
            msvcrt.locking(fd, msvcrt.LK_NBLCK, 1)
        else:
            import fcntl

            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        return False
    return True


def _pid_in(fd: int) -> int | None:
    """The pid written at the start of the lock file (None when unreadable or empty)."""
    try:
        os.lseek(fd, 0, os.SEEK_SET)
        return int(os.read(fd, 64).decode("ascii", "replace").strip().split()[0])
    except (OSError, ValueError, IndexError):  # OSError: a lock of an older acp-tray over the pid
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
            owner = _pid_in(fd)
            os.close(fd)
            raise AlreadyRunningError(owner)
        previous = _pid_in(fd)
        os.lseek(fd, 0, os.SEEK_SET)
        os.ftruncate(fd, 0)
        os.write(fd, f"{os.getpid()}\n".encode())
        self._fd = fd
        if previous is not None and previous != os.getpid():
            return f"took over the lock left by a daemon that did not stop cleanly (pid {previous})"
        return None

    def release(self) -> None:
        """Remove the file and let go. Unix: unlinked while still locked, so a daemon starting now
        never locks a file that is about to vanish. Windows: closed first (an open file cannot be
        deleted); a daemon that opened it in between keeps it, as its open handle makes the
        delete fail."""
        if self._fd is None:
            return
        fd, self._fd = self._fd, None
        if sys.platform == "win32":
            os.close(fd)
        with contextlib.suppress(OSError):
            self.path.unlink()
        if sys.platform != "win32":
            os.close(fd)
