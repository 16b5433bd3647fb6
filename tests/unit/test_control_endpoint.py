"""The control socket: where it lives, the checks that keep it private, and the line protocol on it."""

from __future__ import annotations

import os
import shutil
import socket
import stat
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from acp_tray.control import wire
from acp_tray.control.endpoint import (
    SOCKET_NAME,
    EndpointError,
    check_private_dir,
    prepare_socket_path,
    runtime_dir,
    socket_path,
)

posix_only = pytest.mark.skipif(sys.platform in ("win32", "darwin"), reason="XDG runtime dir rules: Linux/BSD")


@pytest.fixture
def short_dir() -> Iterator[Path]:
    """A directory with a short path (pytest's tmp_path can make a socket path too long by itself)."""
    path = Path(tempfile.mkdtemp(prefix="acpt-"))
    yield path
    for child in path.rglob("*"):  # undo chmods so the directory can be removed
        if child.is_dir() and not child.is_symlink():
            child.chmod(0o700)
    shutil.rmtree(path)


def mode(path: Path) -> int:
    return stat.S_IMODE(path.lstat().st_mode)


# --- where ----------------------------------------------------------------------------------------


@posix_only
def test_the_runtime_dir_is_in_xdg_runtime_dir(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_RUNTIME_DIR", "/run/user/4242")
    assert runtime_dir() == Path("/run/user/4242/acp-tray")
    assert socket_path() == Path("/run/user/4242/acp-tray") / SOCKET_NAME


@posix_only
@pytest.mark.parametrize("value", [None, "", "relative/run"])
def test_an_unset_or_relative_xdg_runtime_dir_is_not_used(monkeypatch: pytest.MonkeyPatch, value: str | None) -> None:
    if value is None:
        monkeypatch.delenv("XDG_RUNTIME_DIR", raising=False)
    else:
        monkeypatch.setenv("XDG_RUNTIME_DIR", value)
    directory = runtime_dir()
    assert directory.is_absolute()
    assert "relative" not in directory.parts
    assert "acp-tray" in directory.name  # still a directory of acp-tray's own, never the bare base


# --- making it private ------------------------------------------------------------------------------


@posix_only
def test_prepare_creates_the_directory_private(short_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    base = short_dir / "run"  # does not exist yet either
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(base))
    old_umask = os.umask(0)  # even with a permissive umask, nobody else gets in
    try:
        path = prepare_socket_path()
    finally:
        os.umask(old_umask)
    assert path == base / "acp-tray" / SOCKET_NAME
    assert path.parent.is_dir()
    assert mode(path.parent) == 0o700
    assert mode(base) == 0o700
    assert prepare_socket_path() == path  # a second start accepts its own directory


@posix_only
def test_prepare_refuses_an_existing_directory_others_can_write(
    short_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(short_dir))
    (short_dir / "acp-tray").mkdir()
    (short_dir / "acp-tray").chmod(0o777)
    with pytest.raises(EndpointError, match="can be written by others"):
        prepare_socket_path()
    assert mode(short_dir / "acp-tray") == 0o777  # reported, not silently changed


@posix_only
@pytest.mark.parametrize("bad_mode", [0o777, 0o720, 0o702])
def test_a_directory_others_can_write_is_refused_with_the_fix(short_dir: Path, bad_mode: int) -> None:
    directory = short_dir / "acp-tray"
    directory.mkdir()
    directory.chmod(bad_mode)
    with pytest.raises(EndpointError) as raised:
        check_private_dir(directory)
    message = str(raised.value)
    assert "can be written by others" in message
    assert f"chmod 700 {directory}" in message


@posix_only
@pytest.mark.parametrize("good_mode", [0o700, 0o755])
def test_a_directory_only_you_can_write_is_accepted(short_dir: Path, good_mode: int) -> None:
    directory = short_dir / "acp-tray"
    directory.mkdir()
    directory.chmod(good_mode)
    check_private_dir(directory)  # no exception


@posix_only
def test_a_symlink_is_refused_even_to_a_private_directory(short_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    target = short_dir / "elsewhere"
    target.mkdir(mode=0o700)
    link = short_dir / "acp-tray"
    link.symlink_to(target)
    with pytest.raises(EndpointError, match="not a directory"):
        check_private_dir(link)
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(short_dir))
    with pytest.raises(EndpointError, match="symlink"):
        prepare_socket_path()


@posix_only
def test_a_dangling_symlink_is_refused_not_followed(short_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    target = short_dir / "would-be-created"
    (short_dir / "acp-tray").symlink_to(target)
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(short_dir))
    with pytest.raises(EndpointError, match="symlink"):
        prepare_socket_path()
    assert not target.exists()  # nothing was created through the link


@posix_only
def test_a_file_is_refused(short_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (short_dir / "acp-tray").write_text("not a directory")
    with pytest.raises(EndpointError, match="not a directory"):
        check_private_dir(short_dir / "acp-tray")
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(short_dir))
    with pytest.raises(EndpointError, match="not a directory"):
        prepare_socket_path()


def test_a_missing_directory_is_refused(short_dir: Path) -> None:
    with pytest.raises(EndpointError, match="does not exist"):
        check_private_dir(short_dir / "nowhere")


@posix_only
@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() != 0, reason="chown to another user needs root")
def test_a_directory_of_another_user_is_refused(short_dir: Path) -> None:
    directory = short_dir / "acp-tray"
    directory.mkdir(mode=0o700)
    os.chown(directory, 65534, 65534)
    with pytest.raises(EndpointError, match="belongs to user id 65534"):
        check_private_dir(directory)


@posix_only
def test_an_over_long_socket_path_is_refused_with_what_to_do(short_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    base = short_dir / ("d" * 120)
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(base))
    with pytest.raises(EndpointError) as raised:
        prepare_socket_path()
    message = str(raised.value)
    assert "too long" in message
    assert "XDG_RUNTIME_DIR" in message


@posix_only
def test_every_accepted_socket_path_can_be_bound(short_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # the longest base directory prepare_socket_path accepts: its socket must still fit a Unix socket address
    accepted = None
    for length in range(1, 200):
        base = short_dir / ("d" * length)
        monkeypatch.setenv("XDG_RUNTIME_DIR", str(base))
        try:
            accepted = prepare_socket_path()
        except EndpointError as exc:
            assert "too long" in str(exc)
            break
    assert accepted is not None
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
        sock.bind(str(accepted))
    assert accepted.exists()


# --- the wire ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "message",
    [
        {"op": "status", "args": {}},
        {"op": "prompt", "args": {"agent": "claude", "text": "two\nlines, ünïcödé and \u2028 too"}},
        {"ok": True, "result": [1, 2.5, None, "x"]},
        {"ok": False, "error": "no such agent", "code": "unknown_agent"},
    ],
)
def test_wire_round_trip(message: dict[str, Any]) -> None:
    line = wire.encode(message)
    assert line.endswith(b"\n") and line.count(b"\n") == 1  # one message, one line
    decoded = wire.decode(line)
    assert decoded == {"v": wire.VERSION, **message}
    assert wire.decode(line.rstrip(b"\n")) == decoded


@pytest.mark.parametrize("line", [b'{"v": 2, "op": "status"}', b'{"v": 0, "op": "status"}', b'{"op": "status"}'])
def test_another_version_is_a_protocol_error(line: bytes) -> None:
    with pytest.raises(wire.ProtocolError, match="version"):
        wire.decode(line)


@pytest.mark.parametrize("line", [b"hello", b"", b'{"v": 1,', b"\xff\xfe", b"{'v': 1}"])
def test_non_json_is_a_protocol_error(line: bytes) -> None:
    with pytest.raises(wire.ProtocolError):
        wire.decode(line)


@pytest.mark.parametrize("line", [b"[1]", b'"v"', b"1", b"null", b"true"])
def test_a_non_object_is_a_protocol_error(line: bytes) -> None:
    with pytest.raises(wire.ProtocolError, match="not a JSON object"):
        wire.decode(line)
