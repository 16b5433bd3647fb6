"""Icons shipped inside the package (drawn by packaging/make_icons.py)."""

from __future__ import annotations

from pathlib import Path

ASSETS = Path(__file__).resolve().parent


def icon_path(size: int = 128) -> Path:
    return ASSETS / f"acp-tray-{size}.png"
