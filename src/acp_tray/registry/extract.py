"""Unpacking a downloaded agent archive (.tar.gz, .tgz, .tar.bz2, .tar.xz, .zip) safely: every
member must land inside the target directory (no absolute paths, no `..`), links may only point
inside it, no device files, and the unpacked size is bounded. A hostile archive is refused whole:
nothing of it is left behind.
"""

from __future__ import annotations

import os
import shutil
import stat
import tarfile
import zipfile
from pathlib import Path, PurePosixPath

MAX_UNPACKED_BYTES = 4 * 1024 * 1024 * 1024
MAX_MEMBERS = 100_000


class ArchiveError(Exception):
    """A refused or unreadable archive; `str()` names the member and why."""


def _inside(name: str) -> PurePosixPath:
    """The member's path, relative and without `..`; else ArchiveError."""
    path = PurePosixPath(name.replace("\\", "/"))
    if path.is_absolute() or (path.parts and ":" in path.parts[0]):
        raise ArchiveError(f"member {name!r} has an absolute path; archive refused")
    if ".." in path.parts:
        raise ArchiveError(f"member {name!r} points outside the directory (..); archive refused")
    return path


def _link_inside(member: PurePosixPath, target: str, name: str) -> None:
    if target.startswith("/") or _escapes(member.parent / target):
        raise ArchiveError(f"link {name!r} -> {target!r} points outside the directory; archive refused")


def _escapes(path: PurePosixPath) -> bool:
    depth = 0
    for part in path.parts:
        depth += -1 if part == ".." else 0 if part == "." else 1
        if depth < 0:
            return True
    return False


def _check_tar(archive: tarfile.TarFile) -> None:
    total = 0
    for count, member in enumerate(archive.getmembers(), start=1):
        if count > MAX_MEMBERS:
            raise ArchiveError(f"more than {MAX_MEMBERS} members; archive refused")
        path = _inside(member.name)
        if member.issym():
            _link_inside(path, member.linkname, member.name)
        elif member.islnk():
            _inside(member.linkname)
        elif not (member.isfile() or member.isdir()):
            raise ArchiveError(f"member {member.name!r} is a device or pipe; archive refused")
        total += member.size
        if total > MAX_UNPACKED_BYTES:
            raise ArchiveError(f"unpacks to more than {MAX_UNPACKED_BYTES} bytes; archive refused")


def _check_zip(archive: zipfile.ZipFile) -> None:
    total = 0
    for count, info in enumerate(archive.infolist(), start=1):
        if count > MAX_MEMBERS:
            raise ArchiveError(f"more than {MAX_MEMBERS} members; archive refused")
        _inside(info.filename)
        if stat.S_ISLNK(info.external_attr >> 16):
            raise ArchiveError(f"member {info.filename!r} is a link (not unpacked from zip archives); archive refused")
        total += info.file_size
        if total > MAX_UNPACKED_BYTES:
            raise ArchiveError(f"unpacks to more than {MAX_UNPACKED_BYTES} bytes; archive refused")


def _private(root: Path) -> None:
    """Owner only: directories 0700, files 0600 (0700 when anyone could execute them)."""
    for directory, _dirs, files in os.walk(root):
        os.chmod(directory, 0o700)
        for name in files:
            path = Path(directory, name)
            if path.is_symlink():
                continue
            executable = path.stat().st_mode & 0o111
            os.chmod(path, 0o700 if executable else 0o600)


def unpack(archive: Path, target: Path, *, url: str) -> None:
    """Unpack `archive` (its kind from `url`'s name) into the new directory `target`."""
    name = url.lower().split("?")[0]
    target.mkdir(mode=0o700, parents=True)
    try:
        if name.endswith(".zip"):
            with zipfile.ZipFile(archive) as zipped:
                _check_zip(zipped)
                for info in zipped.infolist():
                    zipped.extract(info, target)
                    mode = (info.external_attr >> 16) & 0o777
                    if mode and not info.is_dir():
                        os.chmod(target / _inside(info.filename), mode & 0o755)
        elif name.endswith((".tar.gz", ".tgz", ".tar.bz2", ".tbz2", ".tar.xz", ".txz", ".tar")):
            with tarfile.open(archive) as tarred:
                _check_tar(tarred)
                if hasattr(tarfile, "data_filter"):  # 3.11.4+: the stdlib's own checks too
                    tarred.extractall(target, filter="data")
                else:  # pragma: no cover - older 3.11: ours above are the checks
                    tarred.extractall(target)
        else:
            raise ArchiveError("not an archive acp-tray unpacks (.tar.gz, .tar.bz2, .tar.xz, .zip)")
        _private(target)
    except BaseException as exc:
        shutil.rmtree(target, ignore_errors=True)
        if isinstance(exc, (tarfile.TarError, zipfile.BadZipFile, EOFError)):
            raise ArchiveError(f"not a readable archive ({exc})") from None
        raise
