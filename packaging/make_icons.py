"""Draw the acp-tray icon with Pillow at the hicolor sizes (mirrors assets/acp-tray.svg).

    python packaging/make_icons.py

Writes src/acp_tray/assets/acp-tray-SIZE.png (shipped in the wheel: notifications and the tray
use them) and packaging/icons/hicolor/SIZExSIZE/apps/acp-tray.png (for a desktop install); then
src/acp_tray/assets/acp-tray-CLASS-SIZE.png, the notification icons: the tray's own drawing with
its badge in the severity class's colour (`acp_tray.tray.icon.render`, so the two never differ);
and src/acp_tray/assets/no-icon-64.png, what the window shows for an agent icon it cannot draw.
The results are committed; run this again after changing the design.
"""

from __future__ import annotations

from pathlib import Path

from PIL import Image, ImageDraw

ROOT = Path(__file__).resolve().parent.parent
SIZES = (16, 22, 24, 32, 48, 64, 128, 256)
NAVY = (43, 58, 85, 255)
PAPER = (244, 246, 251, 255)
AMBER = (242, 163, 58, 255)


def draw(size: int) -> Image.Image:
    """The 64-unit design, drawn 4x larger and scaled down for clean edges at every size."""
    scale = size * 4 / 64
    image = Image.new("RGBA", (size * 4, size * 4), (0, 0, 0, 0))
    pen = ImageDraw.Draw(image)

    def box(x0: float, y0: float, x1: float, y1: float) -> tuple[float, float, float, float]:
        return (x0 * scale, y0 * scale, x1 * scale, y1 * scale)

    pen.rounded_rectangle(box(2, 2, 62, 62), radius=14 * scale, fill=NAVY)
    pen.rounded_rectangle(box(10, 16, 54, 44), radius=4 * scale, fill=PAPER)
    pen.polygon([(20 * scale, 43 * scale), (30 * scale, 43 * scale), (20 * scale, 52 * scale)], fill=PAPER)
    if size >= 24:  # text lines only where they stay legible
        pen.rounded_rectangle(box(18, 24, 40, 28), radius=2 * scale, fill=NAVY)
        pen.rounded_rectangle(box(18, 32, 32, 36), radius=2 * scale, fill=NAVY)
    pen.ellipse(box(39.5, 5.5, 60.5, 26.5), fill=NAVY)
    pen.ellipse(box(42, 8, 58, 24), fill=AMBER)
    return image.resize((size, size), Image.Resampling.LANCZOS)


def main() -> None:
    assets = ROOT / "src" / "acp_tray" / "assets"
    assets.mkdir(parents=True, exist_ok=True)
    for size in SIZES:
        image = draw(size)
        image.save(assets / f"acp-tray-{size}.png", optimize=True)
        hicolor = ROOT / "packaging" / "icons" / "hicolor" / f"{size}x{size}" / "apps"
        hicolor.mkdir(parents=True, exist_ok=True)
        image.save(hicolor / "acp-tray.png", optimize=True)
    severity_icons()
    no_icon()


def no_icon() -> None:
    """A soft grey disc: the window's stand-in for an agent's icon that is missing or cannot be drawn."""
    from acp_tray.assets import no_icon_path

    image = Image.new("RGBA", (64, 64), (0, 0, 0, 0))
    ImageDraw.Draw(image).ellipse((8, 8, 56, 56), fill=(138, 148, 166, 115))
    image.save(no_icon_path(), optimize=True)


def severity_icons() -> None:
    """After the app icon (the badge is drawn on it)."""
    from acp_tray.assets import SEVERITY_ICON_SIZES, severity_icon
    from acp_tray.tray.icon import BADGE_COLOURS, render

    for severity_class in BADGE_COLOURS:
        for size in SEVERITY_ICON_SIZES:
            render(severity_class, size=size).save(severity_icon(severity_class, size), optimize=True)


if __name__ == "__main__":
    main()
