"""`benchmarks/window.py --quick` runs end to end and prints its labelled figures (no timing asserted:
the figures are for people; this only proves the script works)."""

from __future__ import annotations

import re
import subprocess
import sys

from tests.support.browser import chromium_executable, unavailable
from tests.support.daemons import cli_env
from tests.support.repo import ROOT

MS = r"\s+[\d.]+ /\s+[\d.]+ ms"
MB = r"[\d.]+ MB"


def test_the_window_benchmark_runs_in_quick_mode() -> None:
    if chromium_executable() is None:
        unavailable("no chromium (.ci/system-deps installs Debian's)")
    result = subprocess.run(
        [sys.executable, str(ROOT / "benchmarks" / "window.py"), "--quick"],
        capture_output=True,
        text=True,
        env=cli_env(),
        cwd=ROOT,
        timeout=170,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    out = result.stdout
    assert "reproduce: python benchmarks/window.py --quick" in out
    for pattern in (
        r"cold \(no window server running\):\n  acp-tray ui -> load" + MS + r".*target < 1000 ms",
        r"bare Starlette app -> load" + MS,
        r"window / bare app: [\d.]+x",
        r"warm \(the window's server running\):\n  acp-tray ui -> load" + MS + r".*target < 200 ms",
        r"python -c pass" + MS,
        r"bare app page load" + MS,
        r"window / \(python -c pass \+ bare page load\): [\d.]+x",
        rf"memory: the window process {MB} RSS \(peak {MB}\) after 23 page loads · bare Starlette app {MB}",
        rf"daemon RSS: {MB} before the window · {MB} with it \([+-][\d.]+ MB\) · {MB} after it ended",
    ):
        assert re.search(pattern, out), (pattern, out)
