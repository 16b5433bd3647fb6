"""`benchmarks/window.py --quick` runs end to end and prints its labelled figures (no timing asserted:
the figures are for people; this only proves the script works)."""

from __future__ import annotations

import re

from tests.support.benchmark_runs import run_quick
from tests.support.browser import chromium_executable, unavailable

MS = r"\s+[\d.]+ /\s+[\d.]+ ms"
MB = r"[\d.]+ MB"


def test_the_window_benchmark_runs_in_quick_mode() -> None:
    if chromium_executable() is None:
        unavailable("no chromium (.ci/system-deps installs Debian's)")
    out = run_quick("window.py", timeout=170)
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
