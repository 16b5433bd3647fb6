"""`benchmarks/flood.py --quick` and `benchmarks/scale.py --quick` run end to end and print their labelled
figures (no timing asserted: the figures are for people; these only prove the scripts work)."""

from __future__ import annotations

import re

import pytest

from tests.support.benchmark_runs import run_quick

NUMBER = r"[\d,]+(?:\.\d+)?"


def test_the_flood_benchmark_runs_in_quick_mode() -> None:
    from tests.desktop.session import missing_tools

    missing = missing_tools()
    if missing:
        pytest.fail(f"install the Debian packages {' '.join(missing)} (make test does, as root)")
    out = run_quick("flood.py", timeout=110)
    assert (
        "flood: 2,000 notices from one agent during one prompt · reproduce: python benchmarks/flood.py --quick" in out
    )
    assert "notifications: freedesktop (dunst" in out and "tray: none (no display)" in out
    for pattern in (
        rf"native notifications dunst received: {NUMBER} \({NUMBER} flood notices, {NUMBER} overflow summaries",
        rf"allowed: burst 5 \+ {NUMBER} s x 5/10 s .* = {NUMBER} -> within the limit",
        rf"held back by the rate limit and counted in the summaries: {NUMBER} · \+ {NUMBER} shown = 2,000 of 2,000",
        rf"peak growth \(VmHWM after - VmRSS before\): {NUMBER} MB \(target < 20 MB\)",
        r"`acp-tray prompt flood go` exit 0 · all 10 parts streamed during the flood: yes · last line after it: yes",
        rf"daemon idle again \(<= 2 CPU ticks in 1 s\): {NUMBER} s after the flood began",
        rf"notices/s: the agent into a no-op json.loads reader {NUMBER} .* daemon / no-op: {NUMBER}x",
        r"flood 0\.\.1,999 each recorded once, in order: yes",
        r"surviving the rotation: 2,000 of 2,000",
        rf"with the tray daemon CPU +{NUMBER} s .* peak RSS growth +{NUMBER} MB",
        rf"without +daemon CPU +{NUMBER} s",
        rf"tray / without: {NUMBER}x the CPU",
    ):
        assert re.search(pattern, out), (pattern, out)
    assert "tray: pystray" in out  # the tray run had its icon


def test_the_scale_benchmark_runs_in_quick_mode() -> None:
    out = run_quick("scale.py", timeout=110)
    assert "scale: 4 agents x 5 sessions at 2 notices/s per session (40/s in all)" in out
    assert "reproduce: python benchmarks/scale.py --quick" in out
    assert "21 ACP sessions opened by session/new" in out
    for label in ("peer", "scale"):
        figures = rf"{label} +{NUMBER} of {NUMBER} presented · median +{NUMBER} ms · p99 +{NUMBER} ms"
        assert re.search(figures, out), (label, out)
    assert re.search(rf"the daemon loop's lag: p99 {NUMBER} ms", out), out
    assert re.search(rf"scale / peer: median {NUMBER}x · p99 {NUMBER}x \(target < 1.5 for both\)", out), out
