"""A benchmark of benchmarks/ run as a person runs it, in its quick mode, for the tests that check it
still runs and prints its figures."""

from __future__ import annotations

import subprocess
import sys

from tests.support.daemons import cli_env
from tests.support.repo import ROOT


def run_quick(script: str, timeout: float) -> str:
    """`python benchmarks/SCRIPT --quick`: what it printed (it must exit 0 within `timeout` s)."""
    result = subprocess.run(
        [sys.executable, str(ROOT / "benchmarks" / script), "--quick"],
        capture_output=True,
        text=True,
        env=cli_env(),
        cwd=ROOT,
        timeout=timeout,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    return result.stdout
