"""The `node` fixture: Node.js and the pinned TypeScript SDK (`npm ci --prefix tests/interop`),
for the tests that run agents built on it."""

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
