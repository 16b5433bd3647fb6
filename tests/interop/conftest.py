"""The interop tests' shared fixture: node, with the pinned TypeScript SDK installed beside them."""

from __future__ import annotations

import shutil

import pytest

from tests.support.repo import ROOT


@pytest.fixture
def node() -> str:
    path = shutil.which("node")
    if path is None or not (ROOT / "tests" / "interop" / "node_modules" / "@agentclientprotocol").is_dir():
        pytest.fail("node and `npm ci --prefix tests/interop` are required (make test installs them)")
    return path
