"""Drawing an agent's SVG icon for the tray menu in a child process with a time and memory budget.

An SVG is the registry's (or an agent's) text: librsvg can spend minutes on a 1 KB file (`<use>`
fan-out with a blur). So it is never drawn on GTK's main loop: a child process draws it once, as a
small PNG, within `BUDGET` seconds of wall time and CPU and `MEMORY` bytes of address space, and is
killed past them. The menu then loads that PNG (acp-tray's own, 16×16), which costs nothing.

Run as `python -m acp_tray.tray.icon_raster COLOUR SIZE` with the SVG on standard input: the PNG
comes out on standard output.
"""

from __future__ import annotations

import subprocess
import sys
import threading

BUDGET = 5.0  # seconds, wall and CPU, for one icon
MEMORY = 1024 * 1024 * 1024  # bytes of address space for the drawing process
MAX_SVG_BYTES = 256 * 1024
MAX_PNG_BYTES = 256 * 1024


class RasterError(Exception):
    """The icon could not be drawn within the budget; `str()` says why in a few words."""


def _limit_this_process() -> None:  # pragma: no cover - runs in the child
    """The child's own limits, set before it reads the SVG (no `preexec_fn`: the daemon has threads)."""
    if sys.platform == "win32":
        return
    import resource

    cpu = int(BUDGET) + 1
    resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu))
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY, MEMORY))


class Rasteriser:
    """Draws icons one at a time in child processes; `close()` ends the one running, if any."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._running: subprocess.Popen[bytes] | None = None
        self._closed = False

    def draw(self, svg: bytes, colour: str, size: int) -> bytes:
        """The PNG of `svg` at `size`×`size` with `currentColor` as `colour`; RasterError if not."""
        with self._lock:
            if self._closed:
                raise RasterError("the tray is closing")
            child = subprocess.Popen(
                [sys.executable, "-m", __name__, colour, str(size)],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.DEVNULL,
            )
            self._running = child
        try:
            png, _ = child.communicate(svg[:MAX_SVG_BYTES], timeout=BUDGET)
        except subprocess.TimeoutExpired:
            child.kill()
            child.wait()
            raise RasterError(f"not drawn within {BUDGET:g} s") from None
        finally:
            with self._lock:
                self._running = None
        if child.returncode < 0:
            raise RasterError("ended: it needed more than the time or memory an icon may take")
        if child.returncode != 0 or not png.startswith(b"\x89PNG") or len(png) > MAX_PNG_BYTES:
            raise RasterError("not an SVG that can be drawn")
        return png

    def close(self) -> None:
        """End the drawing in progress, and refuse new ones (the tray is stopping)."""
        with self._lock:
            self._closed = True
            if self._running is not None and self._running.poll() is None:
                self._running.kill()


def _draw(colour: str, size: int) -> int:  # pragma: no cover - runs in the child (covered by the tray tests)
    _limit_this_process()
    import gi

    gi.require_version("GdkPixbuf", "2.0")
    from gi.repository import GdkPixbuf

    svg = sys.stdin.buffer.read(MAX_SVG_BYTES).replace(b"currentColor", colour.encode("ascii"))
    loader = GdkPixbuf.PixbufLoader.new_with_type("svg")
    loader.set_size(size, size)
    try:
        loader.write(svg)
        loader.close()
    except Exception:  # GLib.Error: not an SVG librsvg can draw
        return 1
    pixbuf = loader.get_pixbuf()
    if pixbuf is None:
        return 1
    ok, png = pixbuf.save_to_bufferv("png", [], [])
    if not ok:
        return 1
    sys.stdout.buffer.write(png)
    return 0


if __name__ == "__main__":  # pragma: no cover - the child
    sys.exit(_draw(sys.argv[1], int(sys.argv[2])))
