"""Windows icons for notifications: Windows' balloon API loads an `.ico` file only, acp-tray's
icons are PNGs. Whatever PNG is chosen is converted once with Pillow into the cache directory
(a changed PNG gets a new file), private to the user."""

from __future__ import annotations

import hashlib
import io
import os
from pathlib import Path

import platformdirs

APP = "acp-tray"
ICO_SIZES = [(16, 16), (24, 24), (32, 32), (48, 48), (64, 64), (128, 128), (256, 256)]


def ico_dir() -> Path:
    return Path(platformdirs.user_cache_dir(APP)) / "icons"


def ico_for(png: Path, directory: Path | None = None) -> Path:
    """The `.ico` made from `png` (every standard size up to the PNG's own). Raises OSError when the
    PNG cannot be read or the icon cannot be written."""
    from PIL import Image

    info = png.stat()
    key = hashlib.sha256(f"{png.resolve()}\0{info.st_size}\0{info.st_mtime_ns}".encode()).hexdigest()[:16]
    target = (directory or ico_dir()) / f"{png.stem}-{key}.ico"
    if target.exists():
        return target
    target.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    buffer = io.BytesIO()
    with Image.open(png) as image:
        image.convert("RGBA").save(buffer, format="ICO", sizes=ICO_SIZES)
    partial = target.with_name(f"{target.name}.{os.getpid()}.tmp")
    fd = os.open(partial, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | getattr(os, "O_BINARY", 0), 0o600)
    try:
        with os.fdopen(fd, "wb") as out:
            out.write(buffer.getvalue())
        os.replace(partial, target)
    except BaseException:
        partial.unlink(missing_ok=True)
        raise
    return target
