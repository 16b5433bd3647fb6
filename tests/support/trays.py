"""A tray host (trayer's XEmbed tray, or a StatusNotifierItem host) on the test desktop, and a look at
the icon in it: screenshots, the icon's pixels, and xdotool to click and type."""

from __future__ import annotations

import contextlib
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from PIL import Image

from tests.support.daemons import cli_env

STRIP = 40  # trayer's bar at the top of the screen; dunst's notifications start below it


HOSTS = {
    # XEmbed, the classic system tray
    "trayer": ["trayer", "--edge", "top", "--align", "right", "--widthtype", "request", "--height", "32",
               "--transparent", "false", "--tint", "0x333333"],
    # StatusNotifierItem with its own watcher: the path real desktops (KDE, GNOME with the extension) use
    "sni": ["gtk-sni-tray-standalone", "--watcher", "--top", "--end", "--size", "32"],
}  # fmt: skip


@pytest.fixture(params=list(HOSTS))
def tray_host(desktop: Any, request: pytest.FixtureRequest) -> Iterator[dict[str, str]]:
    pytest.importorskip("gi", reason="PyGObject is needed for the tray menu (make test installs it)")
    env = cli_env(**desktop.env, NO_AT_BRIDGE="1")
    host = subprocess.Popen(HOSTS[request.param], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    time.sleep(1.0)
    try:
        yield env
    finally:
        host.terminate()
        host.wait(5)


def screenshot(env: dict[str, str], path: Path) -> Image.Image:
    subprocess.run(["import", "-window", "root", str(path)], env=env, check=True)
    return Image.open(path).convert("RGB")


def strip_pixels(image: Image.Image, colour: tuple[int, int, int, int], tolerance: int = 30) -> list[tuple[int, int]]:
    width = image.width
    found = []
    for y in range(STRIP):
        for x in range(width - 200, width):
            pixel = image.getpixel((x, y))
            assert isinstance(pixel, tuple)  # an RGB image
            if all(abs(a - b) <= tolerance for a, b in zip(pixel, colour[:3], strict=False)):
                found.append((x, y))
    return found


def icon_centre(image: Image.Image) -> tuple[int, int]:
    navy = strip_pixels(image, (43, 58, 85, 255), tolerance=8)
    assert navy, "the tray icon is not docked"
    xs, ys = [p[0] for p in navy], [p[1] for p in navy]
    return (min(xs) + max(xs)) // 2, (min(ys) + max(ys)) // 2


def xdotool(env: dict[str, str], *args: str) -> None:
    subprocess.run(["xdotool", *args], env=env, check=True, capture_output=True)
    time.sleep(0.3)


@contextlib.contextmanager
def trayer(env: dict[str, str]) -> Iterator[None]:
    host = subprocess.Popen(HOSTS["trayer"], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        yield
    finally:
        host.terminate()
        host.wait(5)


def docked(env: dict[str, str], shot: Path) -> bool:
    deadline = time.monotonic() + 15  # a loaded machine docks the icon late: wait for it, never loosen
    while time.monotonic() < deadline:
        if strip_pixels(screenshot(env, shot), (43, 58, 85, 255), tolerance=8):
            return True
        time.sleep(0.5)
    return False
