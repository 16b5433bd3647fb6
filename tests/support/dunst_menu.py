"""dunst's context menu, driven by a test: dunst restarted with tests/desktop/pick-action.sh as its
`dmenu` (tests/desktop/dunstrc), which copies the menu it is shown to a file and picks the line the
test asked for; `dunstctl context` opens it.

Each menu line is "#LABEL (SUMMARY) [ID,KEY]"; dunst invokes the line the script prints back, which
makes it emit `ActionInvoked(ID, KEY)` on the bus.
"""

from __future__ import annotations

import re
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.support.repo import ROOT

MENU_LINE = re.compile(r"#(?P<label>.*) \((?P<summary>.*)\) \[(?P<id>\d+),(?P<key>[^\]]*)\]")


@pytest.fixture
def dmenu(desktop: Any, desktop_env: dict[str, str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """dunst restarted in the project root (the dunstrc names the script relative to it) with the
    script reading its choice from, and copying dunst's menu to, a directory of this test."""
    directory = tmp_path / "dmenu"
    directory.mkdir()
    monkeypatch.chdir(ROOT)
    monkeypatch.setenv("ACP_TRAY_TEST_DMENU", str(directory))
    desktop.kill_dunst()
    desktop.start_dunst()
    yield directory


def dunstctl(*args: str) -> None:
    subprocess.run(["dunstctl", *args], check=True, capture_output=True, timeout=10)


def pick(directory: Path, text: str) -> None:
    """Open dunst's context menu and choose the first line that contains `text`."""
    (directory / "pick").write_text(text, encoding="utf-8")
    dunstctl("context")


def menu_lines(directory: Path) -> list[dict[str, str]]:
    lines = (directory / "menu").read_text(encoding="utf-8").splitlines()
    parsed = [MENU_LINE.fullmatch(line) for line in lines if line]
    assert all(parsed), lines
    return [match.groupdict() for match in parsed if match]
