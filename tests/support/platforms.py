"""Markers for tests that assume a POSIX system (they are skipped by the Windows lane's run of tests/unit)."""

from __future__ import annotations

import sys

import pytest


def posix_only(reason: str) -> pytest.MarkDecorator:
    """Skip on Windows, saying which POSIX behaviour the test depends on."""
    return pytest.mark.skipif(sys.platform == "win32", reason=f"POSIX only: {reason}")
