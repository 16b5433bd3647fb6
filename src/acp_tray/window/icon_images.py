"""Agent and registry icons on the window's pages, only ever as PNG: an SVG from a registry or an
agent can hold a browser tab for minutes (`<use>` fan-out with a blur), so the page never gets one.
acp-tray draws it once in a child process with a time and memory budget (`tray.icon_raster`, as
the tray menu does), keeps the PNG in the cache directory (0600) by the SVG's digest, and remembers
an icon that could not be drawn (a marker beside it) so that it is not tried again; that one, and a
missing icon, is shown as the package's grey disc."""

from __future__ import annotations

import asyncio
import hashlib
import logging
from pathlib import Path

from starlette.responses import Response

from acp_tray.assets import no_icon_path
from acp_tray.files import paths
from acp_tray.files.atomic import write_atomically
from acp_tray.tray.icon_raster import MAX_SVG_BYTES, RasterError, Rasteriser

log = logging.getLogger(__name__)

SIZE = 64  # pixels: sharp at the pages' 24 and 32 CSS pixels on a 2× screen
COLOUR = "#1f2430"  # `currentColor`: the page's text colour (icons sit on a white tile in both themes)
FAILED = b""  # a marker's content: this SVG could not be drawn


def icon_cache() -> Path:
    """Where the window keeps the icons it drew (and the markers of those it could not)."""
    return paths.cache_dir() / "window-icons"


class IconImages:
    """The PNG of an icon's SVG, drawn at most once per SVG and one at a time."""

    def __init__(self, cache: Path) -> None:
        self._cache = cache
        self._raster = Rasteriser()
        self._turn = asyncio.Lock()  # one drawing at a time: a page asks for all its icons at once

    async def response(self, svg: Path | None) -> Response:
        """The icon drawn from the SVG file `svg` as an image/png response; the grey disc when
        there is none or it cannot be drawn."""
        png = await self._png(svg) if svg is not None else None
        body = png if png is not None else no_icon_path().read_bytes()
        return Response(body, media_type="image/png")  # the guard says no-store; the drawn file makes it cheap

    async def _png(self, svg_path: Path) -> bytes | None:
        try:
            svg = await asyncio.to_thread(_read, svg_path)
        except OSError:
            return None
        digest = hashlib.sha256(b"%s\0%d\0%s" % (COLOUR.encode(), SIZE, svg)).hexdigest()[:32]
        png_path, failed = self._cache / f"{digest}.png", self._cache / f"{digest}.failed"
        known = await asyncio.to_thread(_known, png_path, failed)  # drawn before: not behind a drawing
        if known is not None:
            return known or None
        async with self._turn:
            known = await asyncio.to_thread(_known, png_path, failed)  # drawn while this one waited
            if known is not None:
                return known or None
            try:
                png = await asyncio.to_thread(self._raster.draw, svg, COLOUR, SIZE)
            except RasterError as exc:
                log.info("icon %s not shown: %s", svg_path.name, exc)
                png = FAILED
            try:
                await asyncio.to_thread(write_atomically, png_path if png else failed, png, mode=0o600)
            except OSError as exc:
                log.warning("icon %s not kept in %s: %s", svg_path.name, self._cache, exc)
        return png or None


def _read(path: Path) -> bytes:
    with path.open("rb") as file:
        return file.read(MAX_SVG_BYTES)


def _known(png: Path, failed: Path) -> bytes | None:
    """The PNG drawn before, FAILED when it could not be drawn, None when it was never tried."""
    if failed.is_file():
        return FAILED
    try:
        return png.read_bytes()
    except OSError:
        return None
