"""The checks on a tar archive, in two passes over its (decompressed) stream, both bounded as they go.

`scan` reads the raw headers one 512-byte block at a time (the stdlib's `TarInfo.frombuf`, which
parses one header and nothing after it) and skips each member's data: extended headers (pax, GNU
long names) are bounded before they are read, as are the number of members and the bytes they
declare, so a hostile header cannot make `tarfile` read gigabytes into memory or decompress
gigabytes to find the next member. It also refuses what would make `tarfile` place members
differently from what it saw (an extended header that changes a member's size, sparse files).

`members` then lets `tarfile` read the same stream member by member (`next()`), and checks the
members it gives against the archive rules (kinds, paths, links) before anything is unpacked.
"""

from __future__ import annotations

import io
import tarfile

from acp_tray.registry.archive_rules import ArchiveError, Budget, Entry, Kind, check_tree, refused, shown

MAX_HEADER_BYTES = 1024 * 1024  # one extended header (a long name is a few kB)
MAX_HEADER_BYTES_IN_ALL = 32 * 1024 * 1024
MAX_HEADERS_IN_A_ROW = 4  # extended headers before one member (global pax, pax, GNU long name and link)
_CHUNK = 1024 * 1024

_EXTENDED = (
    tarfile.XHDTYPE,
    tarfile.XGLTYPE,
    tarfile.SOLARIS_XHDTYPE,
    tarfile.GNUTYPE_LONGNAME,
    tarfile.GNUTYPE_LONGLINK,
)
_PAX = (tarfile.XHDTYPE, tarfile.XGLTYPE, tarfile.SOLARIS_XHDTYPE)
_FILES = (tarfile.REGTYPE, tarfile.AREGTYPE, tarfile.CONTTYPE)  # what tarfile skips data for, but sparse
_OTHERS = (tarfile.DIRTYPE, tarfile.SYMTYPE, tarfile.LNKTYPE)  # no data follows these
# pax records that move where tarfile looks for the next header, or make a sparse file
_MOVING = (b" size=", b" GNU.sparse.")


def _blocks(size: int) -> int:
    return -(-size // tarfile.BLOCKSIZE) * tarfile.BLOCKSIZE


def _read(stream: io.BufferedIOBase, size: int) -> bytes:
    data = stream.read(size)
    if len(data) != size:
        raise refused("the archive ends in the middle of a member")
    return data


def _skip(stream: io.BufferedIOBase, size: int) -> None:
    while size > 0:
        size -= len(_read(stream, min(size, _CHUNK)))


def scan(stream: io.BufferedIOBase) -> None:
    """Read the archive's headers to its end; ArchiveError at the first that is over a bound."""
    budget = Budget()
    extended = _ExtendedHeaders()
    first = True
    while (header := _next_header(stream, first, extended.in_a_row)) is not None:
        first = False
        if header.type in _EXTENDED:
            extended.read(stream, header)
            continue
        extended.in_a_row = 0
        budget.member()
        if header.type in _FILES:
            budget.take(header.size)
            _skip(stream, _blocks(header.size))
        elif header.type not in _OTHERS:
            raise _unusual(header.name)


def _next_header(stream: io.BufferedIOBase, first: bool, in_a_row: int) -> tarfile.TarInfo | None:
    """The next header, or None at the end of the archive (`in_a_row` extended headers wait for a member)."""
    block = stream.read(tarfile.BLOCKSIZE)
    if len(block) == tarfile.BLOCKSIZE and not block.strip(b"\0") and not in_a_row:
        return None  # the end of the archive (an empty archive is one too)
    try:
        return tarfile.TarInfo.frombuf(block, "utf-8", "surrogateescape")
    except tarfile.HeaderError as exc:  # no more headers: the end for tarfile too, unless it is the first
        if in_a_row or first:
            raise tarfile.ReadError(str(exc)) from None
        return None


class _ExtendedHeaders:
    """The extended headers seen so far: how many before the coming member, and their bytes in all."""

    def __init__(self) -> None:
        self.in_a_row = 0
        self.in_all = 0

    def read(self, stream: io.BufferedIOBase, header: tarfile.TarInfo) -> None:
        """Count `header`, bound it, then read its records and refuse those that move members."""
        self.in_a_row += 1
        self.in_all += header.size
        if header.size > MAX_HEADER_BYTES:
            raise refused(f"an extended header of {header.size} bytes (more than {MAX_HEADER_BYTES})")
        if self.in_a_row > MAX_HEADERS_IN_A_ROW:
            raise refused(f"more than {MAX_HEADERS_IN_A_ROW} extended headers in a row")
        if self.in_all > MAX_HEADER_BYTES_IN_ALL:
            raise refused(f"extended headers of more than {MAX_HEADER_BYTES_IN_ALL} bytes in all")
        records = _read(stream, _blocks(header.size))[: header.size]
        if header.type in _PAX and any(record in records for record in _MOVING):
            raise refused("an extended header sets a member's size or makes it sparse")


def _unusual(name: str) -> ArchiveError:
    return refused(f"member {shown(name)} is not a file, directory or link (a device, pipe or sparse file)")


def _entry(member: tarfile.TarInfo) -> Entry:
    if member.issym():
        return Entry(member.name, Kind.SYMLINK, member.linkname)
    if member.islnk():
        return Entry(member.name, Kind.HARDLINK, member.linkname)
    if member.isdir():
        return Entry(member.name, Kind.DIRECTORY)
    if member.isreg() and not member.issparse():
        return Entry(member.name, Kind.FILE)
    raise _unusual(member.name)


def members(archive: tarfile.TarFile) -> list[tarfile.TarInfo]:
    """Every member, as `tarfile` reads them (after `scan` passed the same stream), checked."""
    budget = Budget()
    found: list[tarfile.TarInfo] = []
    while (member := archive.next()) is not None:
        budget.member()
        budget.take(member.size if member.isreg() else 0)
        found.append(member)
    check_tree([_entry(member) for member in found])
    return found
