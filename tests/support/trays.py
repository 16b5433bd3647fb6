"""A tray host (trayer's XEmbed tray, or a StatusNotifierItem host) on the test desktop, and a look at
the icon in it: screenshots, the icon's pixels, and xdotool to click and type."""

from __future__ import annotations

import contextlib
import subprocess
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from PIL import Image

from acp_tray.tray.icon import BADGE_COLOURS
from tests.support.daemons import cli_env
from tests.support.waiting import until

STRIP = 40  # trayer's bar at the top of the screen; dunst's notifications start below it


HOSTS = {
    # XEmbed, the classic system tray
    "trayer": ["trayer", "--edge", "top", "--align", "right", "--widthtype", "request", "--height", "32",
               "--transparent", "false", "--tint", "0x333333"],
    # StatusNotifierItem with its own watcher: the path real desktops (KDE, GNOME with the extension) use
    "sni": ["gtk-sni-tray-standalone", "--watcher", "--top", "--end", "--size", "32"],
}  # fmt: skip
SNI_WATCHER = "org.kde.StatusNotifierWatcher"


def _hosting(name: str, env: dict[str, str]) -> bool:
    """Whether tray host `name` is ready: the X display's system tray selection has its owner
    (XEmbed), or the watcher is on the bus with its host registered (StatusNotifierItem)."""
    if name == "trayer":
        from Xlib import X, display  # type: ignore[import-untyped]  # pystray's dependency on Linux

        connection = display.Display(env["DISPLAY"])
        try:
            owner = connection.get_selection_owner(connection.intern_atom("_NET_SYSTEM_TRAY_S0"))
        finally:
            connection.close()
        return bool(owner != X.NONE)
    asked = subprocess.run(
        ["dbus-send", "--print-reply", f"--dest={SNI_WATCHER}", "/StatusNotifierWatcher",
         "org.freedesktop.DBus.Properties.Get", f"string:{SNI_WATCHER}", "string:IsStatusNotifierHostRegistered"],
        env=env, capture_output=True, text=True, timeout=10, check=False,
    )  # fmt: skip
    return "boolean true" in asked.stdout


def _wait_ready(host: subprocess.Popen[bytes], name: str, env: dict[str, str]) -> bool:
    """Whether `host` became ready (False: it ended first)."""
    try:
        until(lambda: host.poll() is not None or _hosting(name, env), timeout=30, what=f"the {name} tray host")
    except BaseException:
        host.kill()
        host.wait()
        raise
    return host.poll() is None


def start_host(name: str, env: dict[str, str], attempts: int = 6) -> subprocess.Popen[bytes]:
    """Tray host `name` (one of HOSTS) started on the desktop in `env`, once it is ready to take icons
    (waited for, at most 30 s: a fixed pause was too short on a busy machine). A host that ends at
    start (gtk-sni-tray-standalone did, with exit 1, on a loaded machine: its host asked its own
    watcher before the watcher was on the bus, three times in a row in one full run) is started again,
    a little later each time, up to `attempts` times in all; the last one's own words are in the failure."""
    said = ""
    for attempt in range(attempts):
        with tempfile.TemporaryFile() as errors:
            host = subprocess.Popen(HOSTS[name], env=env, stdout=subprocess.DEVNULL, stderr=errors)
            if _wait_ready(host, name, env):
                return host
            errors.seek(0)
            said = f"exit {host.returncode}: " + errors.read().decode(errors="replace")[-500:]
        time.sleep(1.0 + attempt)
    raise AssertionError(f"the {name} tray host ended at start ({said})")


@pytest.fixture(params=list(HOSTS))
def tray_host(desktop: Any, request: pytest.FixtureRequest) -> Iterator[dict[str, str]]:
    pytest.importorskip("gi", reason="PyGObject is needed for the tray menu (make test installs it)")
    env = cli_env(**desktop.env, NO_AT_BRIDGE="1")
    host = start_host(request.param, env)
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
    host = start_host("trayer", env)
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


def has_colour(image: Image.Image, colour: tuple[int, int, int, int], box: tuple[int, int, int, int]) -> bool:
    """Whether some pixel in `box` of `image` is `colour` (give or take 12 in each channel)."""
    region = image.crop(box)
    pixels = (region.getpixel((x, y)) for x in range(region.width) for y in range(region.height))
    return any(all(abs(a - b) <= 12 for a, b in zip(pixel, colour[:3], strict=False)) for pixel in pixels)  # type: ignore[arg-type]


def missing_badges(picture: Image.Image) -> list[str]:
    """What the README's notifications picture (the screen's top-right corner) lacks of what it shows:
    the tray icon's red badge, and each severity's badge on a notification's icon."""
    width = picture.width
    tray = has_colour(picture, BADGE_COLOURS["error"], (width - 40, 0, width, 32))
    notices = ("info", "warning", "error", "other")
    lacking = [s for s in notices if not has_colour(picture, BADGE_COLOURS[s], (width - 330, 40, width - 250, 380))]
    return ([] if tray else ["the tray icon's red badge"]) + lacking
