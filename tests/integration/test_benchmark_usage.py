"""`benchmarks/usage_flood.py --quick` runs end to end and prints its labelled figures (no timing asserted)."""

from __future__ import annotations

import re

from tests.support.benchmark_runs import run_quick


def test_the_usage_flood_benchmark_runs_in_quick_mode() -> None:
    out = run_quick("usage_flood.py", timeout=300)
    for kind in ("usage", "notices"):
        assert re.search(kind + r"\s+400 messages · daemon CPU [\d.]+ µs per message", out), out
    assert re.search(r"DND seen by the watcher -?[\d.]+ s after `dnd on` started", out), out
    assert re.search(r"usage / notices, CPU per message: [\d.]+x \(target < 1\)", out), out
