"""Icons shipped inside the package (drawn by packaging/make_icons.py): the app icon, and one per
severity class for notifications, and the window's stand-in for an agent icon it cannot draw."""

from __future__ import annotations

import functools
from pathlib import Path

ASSETS = Path(__file__).resolve().parent


APP_ICON_SIZES = (16, 22, 24, 32, 48, 64, 128, 256)  # hicolor's apps/ sizes, installed for the app menu
SEVERITY_ICON_SIZES = (48, 64, 128)  # freedesktop 48; plyer 128 (64 on Windows)


def icon_path(size: int = 128) -> Path:
    return ASSETS / f"acp-tray-{size}.png"


def no_icon_path() -> Path:
    """A 64×64 grey disc: the window shows it for an agent or registry icon that is missing or that
    cannot be drawn within its budget."""
    return ASSETS / "no-icon-64.png"


@functools.cache  # one per class and size: asked for on every notification
def severity_icon(severity_class: str, size: int = 48) -> Path:
    """A notification's icon: the app icon with the tray's badge in the colour of the severity
    class ("info", "warning", "error", "other"), so an error looks like one at a glance."""
    return ASSETS / f"acp-tray-{severity_class}-{size}.png"
