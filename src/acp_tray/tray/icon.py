"""The tray icon, drawn with Pillow: the app icon plus a severity badge and a do-not-disturb mark.

The badge is a filled dot in the top-right corner in the colour of the most severe unread item
(none: the icon's own amber dot is hidden); DND is a grey disc with a white bar in the bottom-left.
Both keep a dark outline so they read on light and dark panels.

The discs are pasted through a circular mask made from Pillow's radial gradient rather than drawn
with `ImageDraw`, whose import loads FreeType and HarfBuzz (~1.5 MB resident) for text the icon
never has.
"""

from __future__ import annotations

import functools

from PIL import Image

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


Box = tuple[float, float, float, float]  # left, top, right, bottom: inclusive, in pixels


@functools.cache
def _disc() -> Image.Image:
    """A filled circle as a 256 px mask: the radial gradient's value grows with the distance from
    the centre, and at the middle of an edge it is the inscribed circle's radius."""
    gradient = Image.radial_gradient("L")
    radius = gradient.getpixel((128, 0))
    return gradient.point(lambda value: 255 if value < radius else 0)


def _pixels(box: Box) -> tuple[int, int, int, int]:
    left, top, right, bottom = (round(edge) for edge in box)
    return left, top, right + 1, bottom + 1


def _ellipse(image: Image.Image, box: Box, colour: tuple[int, int, int, int]) -> None:
    left, top, right, bottom = _pixels(box)
    mask = _disc().resize((right - left, bottom - top), Image.Resampling.BOX)  # smooth edges
    image.paste(colour, (left, top, right, bottom), mask)


def _base(size: int) -> Image.Image:
    base = Image.open(icon_path(256)).convert("RGBA").resize((size, size), Image.Resampling.LANCZOS)
    # cover the master's amber dot: the badge decides what goes there
    unit = size / 64
    _ellipse(base, (39.5 * unit, 5.5 * unit, 60.5 * unit, 26.5 * unit), BASE)
    return base


def render(badge: str = "none", dnd: bool = False, size: int = 64) -> Image.Image:
    image = _base(size)
    unit = size / 64
    if badge != "none":
        _ellipse(image, (36 * unit, 2 * unit, 62 * unit, 28 * unit), OUTLINE)
        _ellipse(image, (39 * unit, 5 * unit, 59 * unit, 25 * unit), BADGE_COLOURS[badge])
    if dnd:
        _ellipse(image, (2 * unit, 36 * unit, 28 * unit, 62 * unit), OUTLINE)
        _ellipse(image, (5 * unit, 39 * unit, 25 * unit, 59 * unit), DND_GREY)
        image.paste((255, 255, 255, 255), _pixels((9 * unit, 47 * unit, 21 * unit, 51 * unit)))
    return image


def badge_pixel(size: int = 64) -> tuple[int, int]:
    """Where the badge colour can be read (its centre), for tests and screenshots."""
    return (int(49 * size / 64), int(15 * size / 64))


def dnd_pixel(size: int = 64) -> tuple[int, int]:
    return (int(15 * size / 64), int(42 * size / 64))
