"""Hostile archives, built by the tests with tarfile and zipfile themselves: links that chain out of
the target directory, and headers that would cost gigabytes of memory (made in a streaming way, so
the test itself stays small: the zeros are one gzip member repeated)."""

from __future__ import annotations

import gzip
import io
import os
import struct
import tarfile
from pathlib import Path, PurePosixPath

GIGABYTE = 1024 * 1024 * 1024
_ZEROS = 64 * 1024 * 1024


def _add(
    archive: tarfile.TarFile, name: str, *, kind: bytes = tarfile.REGTYPE, link: str = "", data: bytes = b""
) -> None:
    info = tarfile.TarInfo(name)
    info.type, info.linkname, info.size, info.mode = kind, link, len(data), 0o755
    archive.addfile(info, io.BytesIO(data) if data else None)


def tar_gz_of(*members: tuple[str, bytes, str]) -> bytes:
    """A .tar.gz of (name, kind, link target) members; a file's content is its name."""
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz", format=tarfile.PAX_FORMAT) as archive:
        for name, kind, link in members:
            _add(archive, name, kind=kind, link=link, data=name.encode() if kind == tarfile.REGTYPE else b"")
    return buffer.getvalue()


def plain_link_chain(planted: str) -> bytes:
    """`x/l -> ..`, `x/l/m -> ../..` (two levels above the target directory), then a file through
    them: each link is lexically inside; only followed on disk does `x/l/m` leave."""
    return tar_gz_of(
        ("x", tarfile.DIRTYPE, ""),
        ("x/l", tarfile.SYMTYPE, ".."),
        ("x/l/m", tarfile.SYMTYPE, "../.."),
        (f"x/l/m/{planted}", tarfile.REGTYPE, ""),
    )


def late_link() -> bytes:
    """`up -> p/q/../..` is inside while `p` does not exist (the data filter resolves it then);
    `p -> .`, later in the archive, makes `up` the directory above the target directory."""
    return tar_gz_of(
        ("q", tarfile.DIRTYPE, ""),
        ("up", tarfile.SYMTYPE, "p/q/../.."),
        ("p", tarfile.SYMTYPE, "."),
    )


def path_max_chain(target: Path, planted: Path) -> bytes:
    """The CVE-2025-4517 shape for an archive unpacked into `target`: sixteen levels of links to
    directories whose names are long enough that the path, expanded, is past PATH_MAX (where
    os.path.realpath stops resolving), a link back up to `target`, a link `escape` from it to the
    root, and a file `escape/<planted>` (an absolute path)."""
    steps = "abcdefghijklmnop"
    length = (os.pathconf(target.anchor, "PC_PATH_MAX") - len(str(target)) - 1) // (len(steps) + 1)
    component = "d" * length
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz", format=tarfile.PAX_FORMAT) as archive:
        path = ""
        for step in steps:
            _add(archive, os.path.join(path, component), kind=tarfile.DIRTYPE)
            _add(archive, os.path.join(path, step), kind=tarfile.SYMTYPE, link=component)
            path = os.path.join(path, component)
        back = os.path.join(*steps, "l" * 254)
        _add(archive, back, kind=tarfile.SYMTYPE, link=os.path.join(*[".."] * len(steps)))
        _add(archive, "escape", kind=tarfile.SYMTYPE, link=os.path.join(back, *[".."] * len(target.parts)))
        _add(archive, str(PurePosixPath("escape", *planted.parts[1:])), data=b"planted\n")
    return buffer.getvalue()


def _header(name: str, kind: bytes, size: int) -> bytes:
    info = tarfile.TarInfo(name)
    info.type, info.size = kind, size
    return info.tobuf(tarfile.USTAR_FORMAT)


def _zeros(size: int) -> bytes:
    """`size` zero bytes (a multiple of 64 MiB) as gzip members: one compressed, repeated."""
    return gzip.compress(bytes(_ZEROS)) * (size // _ZEROS)


def pax_header_bomb(size: int = 3 * GIGABYTE) -> bytes:
    """A .tar.gz of a few MB whose first header is a pax header of `size` bytes (zeros), then a file."""
    return (
        gzip.compress(_header("././@PaxHeader", tarfile.XHDTYPE, size))
        + _zeros(size)
        + gzip.compress(_header("agent", tarfile.REGTYPE, 0) + bytes(2 * tarfile.BLOCKSIZE))
    )


def zip_directory_bomb(entries: int = 2_000_000) -> bytes:
    """A .zip of ~47 bytes per entry: a central directory of `entries` one-letter files (no data),
    which zipfile.ZipFile reads into one ZipInfo each, whatever its end record says (one)."""
    one = struct.pack("<4s4B4HL2L5H2L", b"PK\x01\x02", 20, 3, 20, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0) + b"a"
    directory = one * entries
    end = struct.pack("<4s4H2LH", b"PK\x05\x06", 0, 0, 1, 1, len(directory), 0, 0)  # "one member"
    return directory + end
