"""Unpacking a downloaded agent archive (.tar.gz, .tgz, .tar.bz2, .tar.xz, .tar, .zip) safely: every
member must land inside the target directory (no absolute paths, no `..`, nothing written through
a link), links may only point inside it, no device files, and the headers, the number of members
and the unpacked bytes are bounded as the archive is read, before they cost memory or time. Our
own checks (archive_rules, tar_checks) are the checks; the stdlib's `data` filter, where this
Python has it, is a second line. A hostile or unreadable archive is refused whole: nothing of it
is left behind, and the error says why in words.
"""

from __future__ import annotations

import bz2
import gzip
import io
import lzma
import os
import shutil
import stat
import tarfile
import zipfile
import zlib
from pathlib import Path
from typing import IO, Any

from acp_tray.registry import tar_checks
from acp_tray.registry.archive_rules import (
    MAX_MEMBERS,
    ArchiveError,
    Budget,
    inside,
    refused,
    shown,
)

__all__ = ["ArchiveError", "unpack"]

MAX_ZIP_DIRECTORY_BYTES = 16 * 1024 * 1024  # a zip's list of members, read whole by ZipFile
_CHUNK = 1024 * 1024
# what reading a broken archive raises (some decompressors raise a plain OSError: see unpack)
_UNREADABLE = (
    tarfile.TarError,
    zipfile.BadZipFile,
    gzip.BadGzipFile,
    EOFError,
    zlib.error,
    lzma.LZMAError,
    NotImplementedError,
)
_FILTER_ERROR: Any = getattr(tarfile, "FilterError", ())  # 3.11.4+: the `data` filter's refusal


def _tar_stream(archive: Path, name: str) -> io.BufferedIOBase:
    """The archive's tar stream, decompressed as it is read (the kind from the URL's name)."""
    if name.endswith((".tar.gz", ".tgz")):
        return gzip.GzipFile(archive, "rb")
    if name.endswith((".tar.bz2", ".tbz2")):
        return bz2.BZ2File(archive, "rb")
    if name.endswith((".tar.xz", ".txz")):
        return lzma.LZMAFile(archive, "rb")
    return archive.open("rb")


def _unpack_tar(archive: Path, target: Path, name: str) -> None:
    with _tar_stream(archive, name) as stream:
        tar_checks.scan(stream)
    with _tar_stream(archive, name) as stream, tarfile.open(fileobj=stream, mode="r:") as tarred:
        members = tar_checks.members(tarred)
        if hasattr(tarfile, "data_filter"):  # 3.11.4+: the stdlib's own checks too
            tarred.extractall(target, members, filter="data")
        else:  # pragma: no cover - older 3.11: ours above are the checks
            tarred.extractall(target, members)


def _zip_directory(raw: IO[bytes]) -> None:
    """Bound the member list before ZipFile reads it whole: its size and count as the archive's
    end record declares them, read by zipfile's own reader of that record (the one ZipFile uses)."""
    end = zipfile._EndRecData(raw)  # type: ignore[attr-defined]
    if end is None:
        raise zipfile.BadZipFile("File is not a zip file")
    entries, size = int(end[zipfile._ECD_ENTRIES_TOTAL]), int(end[zipfile._ECD_SIZE])  # type: ignore[attr-defined]
    if entries > MAX_MEMBERS:
        raise refused(f"more than {MAX_MEMBERS} members")
    if size > MAX_ZIP_DIRECTORY_BYTES:
        raise refused(f"its list of members is {size} bytes (more than {MAX_ZIP_DIRECTORY_BYTES})")


def _check_zip(zipped: zipfile.ZipFile) -> None:
    budget = Budget()
    for info in zipped.infolist():
        budget.member()
        inside(info.filename)
        if stat.S_ISLNK(info.external_attr >> 16):
            raise refused(f"member {shown(info.filename)} is a link (not unpacked from zip archives)")
        if info.flag_bits & 0x1:  # general purpose bit 0: encrypted (it needs a password)
            raise refused(f"member {shown(info.filename)} is encrypted")
        budget.take(info.file_size)


def _unpack_zip(archive: Path, target: Path) -> None:
    with archive.open("rb") as raw:
        _zip_directory(raw)
        with zipfile.ZipFile(raw) as zipped:
            _check_zip(zipped)
            written = Budget()  # what really comes out: a member's declared size is only its word
            for info in zipped.infolist():
                path = target.joinpath(*inside(info.filename).parts)
                if info.is_dir():
                    path.mkdir(mode=0o700, parents=True, exist_ok=True)
                    continue
                path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
                with zipped.open(info) as source, path.open("wb") as sink:
                    while chunk := source.read(_CHUNK):
                        written.take(len(chunk))
                        sink.write(chunk)
                if mode := (info.external_attr >> 16) & 0o777:
                    os.chmod(path, mode & 0o755)


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
            _unpack_zip(archive, target)
        elif name.endswith((".tar.gz", ".tgz", ".tar.bz2", ".tbz2", ".tar.xz", ".txz", ".tar")):
            _unpack_tar(archive, target, name)
        else:
            raise ArchiveError("not an archive acp-tray unpacks (.tar.gz, .tar.bz2, .tar.xz, .zip)")
        _private(target)
    except BaseException as exc:
        shutil.rmtree(target, ignore_errors=True)
        if isinstance(exc, _FILTER_ERROR):
            raise refused(str(exc)) from None
        if isinstance(exc, _UNREADABLE):
            raise ArchiveError(f"not a readable archive ({exc})") from None
        if isinstance(exc, OSError):  # a name too long, a full disk: said, not a traceback
            raise ArchiveError(f"could not be unpacked ({exc.strerror or exc})") from None
        raise
