"""The README's pictures are what tests/tools/make_screenshots.py takes (dunst's default look, the
tray badged, the menu, an approval), and every picture the README shows exists."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path
from typing import Any

from PIL import Image

from acp_tray.tray.icon import BADGE_COLOURS
from tests.support.daemons import cli_env
from tests.support.repo import ROOT


def _has(image: Image.Image, colour: tuple[int, int, int, int], box: tuple[int, int, int, int]) -> bool:
    region = image.crop(box)
    pixels = (region.getpixel((x, y)) for x in range(region.width) for y in range(region.height))
    return any(all(abs(a - b) <= 12 for a, b in zip(pixel, colour[:3], strict=False)) for pixel in pixels)  # type: ignore[arg-type]


def test_the_readme_shows_the_pictures_the_tool_takes(tmp_path: Path, desktop: Any) -> None:
    shown = re.findall(r"!\[[^\]]*\]\((docs/[^)]+\.png)\)", (ROOT / "README.md").read_text(encoding="utf-8"))
    names = {Path(path).name for path in shown}
    assert names == {
        "tray-notifications.png",
        "tray-menu.png",
        "tray-approval-notification.png",
        "tray-approval.png",
        "signin-notification.png",
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
    assert {path.name for path in tmp_path.glob("*.png")} == names
    notices = Image.open(tmp_path / "tray-notifications.png").convert("RGB")
    width = notices.width
    assert _has(notices, BADGE_COLOURS["error"], (width - 40, 0, width, 32)), "the tray icon's red badge"
    for severity in ("info", "warning", "error", "other"):  # each notification's icon has its badge
        assert _has(notices, BADGE_COLOURS[severity], (width - 330, 40, width - 250, 380)), severity
