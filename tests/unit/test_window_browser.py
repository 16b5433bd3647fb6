"""The browser `acp-tray ui` opens the window in: $BROWSER's commands in turn (real processes here),
each watched; one that ends in an error did not open it, and when none did the reason is said and
the redirect file is gone."""

from __future__ import annotations

import os
import stat
import sys
from pathlib import Path

import pytest

from acp_tray.window.keys import opening_key, redirect_name
from acp_tray.window.redirect import open_in_browser

RECORDER = Path(__file__).resolve().parents[1] / "tools" / "browser_recorder.py"


def script(folder: Path, name: str, body: str) -> Path:
    path = folder / name
    path.write_text(f"#!/bin/sh\n{body}\n", encoding="utf-8")
    path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return path


@pytest.mark.skipif(sys.platform == "win32", reason="shell scripts stand in for browsers")
def test_a_failing_browser_is_passed_over_and_the_next_one_opens_it(
    isolated_dirs: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    refusing = script(isolated_dirs, "refusing", 'echo "no display here" >&2\nexit 3')
    monkeypatch.setenv("BROWSER", os.pathsep.join([f"{refusing} %s", f"{sys.executable} {RECORDER} %s &"]))
    key = opening_key("s" * 43, 8765)
    assert open_in_browser("http://127.0.0.1:8765/open?key=" + key, key) is None
    (opened,) = Path(os.environ["ACP_TRAY_TEST_OPENED"]).read_text(encoding="utf-8").splitlines()
    assert opened.startswith("file://") and opened.endswith(redirect_name(key))  # the "&" was not an argument


@pytest.mark.skipif(sys.platform == "win32", reason="shell scripts stand in for browsers")
def test_when_no_browser_opens_it_the_reasons_are_said_and_the_redirect_file_goes(
    isolated_dirs: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    refusing = script(isolated_dirs, "refusing", 'echo "Running as root without --no-sandbox" >&2\nexit 1')
    monkeypatch.setenv("BROWSER", os.pathsep.join([f"{refusing} %s", str(isolated_dirs / "missing")]))
    key = opening_key("s" * 43, 8765)
    why = open_in_browser("http://127.0.0.1:8765/open?key=" + key, key)
    assert why == (
        "refusing ended with exit code 1 (Running as root without --no-sandbox); "
        "missing could not be run (No such file or directory)"
    )
    assert not list(Path(os.environ["XDG_RUNTIME_DIR"]).rglob("open-*.html"))
