"""`benchmarks/control.py --quick` runs end to end and prints its labelled figures (no timing asserted)."""

from __future__ import annotations

import re

from tests.support.benchmark_runs import run_quick


def test_the_control_benchmark_runs_in_quick_mode() -> None:
    out = run_quick("control.py", timeout=90)
    figure = r"\s+[\d.]+ /\s+[\d.]+ ms"
    for label in ("acp-tray status", "python -c pass", "stdlib socket client"):
        assert re.search(re.escape(label) + figure, out), (label, out)
    assert "target: status < 150 ms" in out
    assert "imports the SDK: no · pydantic: no · pystray: no · tomlkit: no" in out
    assert re.search(r"status / floor: [\d.]+x", out), out
    assert re.search(r"direct \(SDK Connection over stdio\)" + figure, out), out
    assert re.search(r"through the daemon \(socket, in-proc\)" + figure, out), out
    assert re.search(r"daemon overhead per prompt: -?[\d.]+ ms median \(target < 2 ms\)", out), out
    assert re.search(r"`acp-tray prompt demo hi`, whole process.*: [\d.]+ / [\d.]+ ms", out), out
