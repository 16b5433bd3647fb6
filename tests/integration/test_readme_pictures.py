"""The README's pictures are what tests/tools/make_screenshots.py takes (dunst's default look, the
tray badged, the menu, an approval, the window's pages light and dark), and every picture the
README shows exists."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path
from typing import Any

from PIL import Image, ImageStat

from acp_tray.window.pages import PAGES as WINDOW_PAGES
from tests.support.daemons import cli_env
from tests.support.repo import ROOT
from tests.support.trays import missing_badges

PAGES = tuple(page.name for page in WINDOW_PAGES)


def test_the_readme_shows_the_pictures_the_tool_takes(tmp_path: Path, desktop: Any) -> None:
    shown = re.findall(r"!\[[^\]]*\]\((docs/[^)]+\.png)\)", (ROOT / "README.md").read_text(encoding="utf-8"))
    names = {Path(path).name for path in shown}
    by_tests = {"window-overview-usage-light.png"}  # an agent's usage: taken by tests/integration/test_window_usage.py
    assert names == by_tests | {
        "tray-notifications.png",
        "tray-menu.png",
        "tray-dnd-menu.png",
        "tray-approval-notification.png",
        "tray-approval.png",
        "signin-notification.png",
        "question-notification.png",
        "window-question-light.png",
        "window-question-dark.png",
        *(f"window-{page}-{scheme}.png" for page in PAGES for scheme in ("light", "dark")),
    }
    assert all((ROOT / path).is_file() for path in shown)
    made = subprocess.run(
        [sys.executable, str(ROOT / "tests" / "tools" / "make_screenshots.py"), str(tmp_path)],
        env=cli_env(),
        capture_output=True,
        text=True,
        timeout=180,
    )
    assert made.returncode == 0, made.stderr
    assert {path.name for path in tmp_path.glob("*.png")} == names - by_tests
    notices = Image.open(tmp_path / "tray-notifications.png").convert("RGB")
    assert missing_badges(notices) == []  # the tray icon's red badge, and each notification's icon its own
    for page in PAGES:  # each page as the system's appearance asks: a light page, and a dark one
        light, dark = (Image.open(tmp_path / f"window-{page}-{s}.png").convert("L") for s in ("light", "dark"))
        assert ImageStat.Stat(light).mean[0] > 180 and ImageStat.Stat(dark).mean[0] < 80, page
