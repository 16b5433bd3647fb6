"""A second local user for the security tests (the `other_user` fixture): created with useradd when
the tests run as root, removed after; otherwise the test is skipped. Its programs run with the
system's Python and the standard library only (it cannot read the tests' venv). Also: a runtime
base both users can reach (`shared_runtime`, as /tmp is without XDG_RUNTIME_DIR), and `procs`,
processes killed after the test. Modules using it run one at a time (tests/support/parallel.py's
"other-user" group): two useradd at once fail."""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

SYSTEM_PYTHON = "/usr/bin/python3"  # the second user cannot read the test's venv: stdlib only


@dataclass
class OtherUser:
    name: str
    uid: int
    gid: int

    def run(self, *args: str, **kwargs: Any) -> subprocess.Popen[str]:
        process: subprocess.Popen[str] = subprocess.Popen(
            [SYSTEM_PYTHON, *args],
            user=self.uid,
            group=self.gid,
            extra_groups=[],
            text=True,
            **kwargs,
        )
        return process


@pytest.fixture(scope="module")
def other_user() -> Iterator[OtherUser]:
    if os.geteuid() != 0:
        pytest.skip("needs root to create a second local user (useradd); run as root, e.g. in CI")
    if shutil.which("useradd") is None or not os.path.exists(SYSTEM_PYTHON):
        pytest.skip("needs useradd and /usr/bin/python3")
    name = f"acptray{os.getpid() % 100000}"
    subprocess.run(["useradd", "--no-create-home", "--shell", "/usr/sbin/nologin", name], check=True)
    try:
        import pwd

        entry = pwd.getpwnam(name)
        yield OtherUser(name, entry.pw_uid, entry.pw_gid)
    finally:
        subprocess.run(["userdel", name], check=False)


@pytest.fixture
def shared_runtime(monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A runtime base both users can reach, as /tmp is when XDG_RUNTIME_DIR is not set."""
    base = Path(tempfile.mkdtemp(prefix="acp-tray-shared-"))
    base.chmod(0o1777)
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(base))
    yield base
    shutil.rmtree(base, ignore_errors=True)


@pytest.fixture
def procs() -> Iterator[list[subprocess.Popen[str]]]:
    started: list[subprocess.Popen[str]] = []
    yield started
    for proc in started:
        proc.kill()
        proc.wait()
