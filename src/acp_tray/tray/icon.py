"""The tray icon, drawn with Pillow: the app icon plus a severity badge and a do-not-disturb mark.

The badge is a filled dot in the top-right corner in the colour of the most severe unread item
(none: the icon's own amber dot is hidden); DND is a grey disc with a white bar in the bottom-left.
Both keep a dark outline so they read on light and dark panels.
"""

from __future__ import annotations

from PIL import Image, ImageDraw

from acp_tray.assets import icon_path

BADGE_COLOURS: dict[str, tuple[int, int, int, int]] = {
    "info": (59, 130, 246, 255),  # blue
    "warning": (245, 158, 11, 255),  # amber
    "error": (220, 38, 38, 255),  # red
    "other": (139, 92, 246, 255),  # violet: unknown severities, no salience implied
}
OUTLINE = (43, 58, 85, 255)
DND_GREY = (107, 114, 128, 255)
BASE = (43, 58, 85, 255)


def _base(size: int) -> Image.Image:
    base = Image.open(icon_path(256)).convert("RGBA").resize((size, size), Image.Resampling.LANCZOS)
    pen = ImageDraw.Draw(base)
    # cover the master's amber dot: the badge decides what goes there
    unit = size / 64
    pen.ellipse((39.5 * unit, 5.5 * unit, 60.5 * unit, 26.5 * unit), fill=BASE)
    return base


def render(badge: str = "none", dnd: bool = False, size: int = 64) -> Image.Image:
    image = _base(size)
    pen = ImageDraw.Draw(image)
    unit = size / 64
    if badge != "none":
        pen.ellipse((36 * unit, 2 * unit, 62 * unit, 28 * unit), fill=OUTLINE)
        pen.ellipse((39 * unit, 5 * unit, 59 * unit, 25 * unit), fill=BADGE_COLOURS[badge])
    if dnd:
        pen.ellipse((2 * unit, 36 * unit, 28 * unit, 62 * unit), fill=OUTLINE)
        pen.ellipse((5 * unit, 39 * unit, 25 * unit, 59 * unit), fill=DND_GREY)
        pen.rectangle((9 * unit, 47 * unit, 21 * unit, 51 * unit), fill=(255, 255, 255, 255))
    return image


def badge_pixel(size: int = 64) -> tuple[int, int]:
    """Where the badge colour can be read (its centre), for tests and screenshots."""
    return (int(49 * size / 64), int(15 * size / 64))


def dnd_pixel(size: int = 64) -> tuple[int, int]:
    return (int(15 * size / 64), int(42 * size / 64))
