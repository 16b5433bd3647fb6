"""Native notifications on Windows: plyer's balloon loads `.ico` files only, so the chosen PNG is
converted; and a balloon that fails (in the thread plyer shows it from) is not counted as shown:
the chain falls back to the next backend."""

from __future__ import annotations

import stat
import sys
from pathlib import Path

import pytest
from PIL import Image

from acp_tray.assets import icon_path
from acp_tray.notifiers import plyer_backend
from acp_tray.notifiers.chain import NotifierChain
from acp_tray.notifiers.ico import ico_for
from acp_tray.notifiers.plyer_backend import PlyerBackend
from tests.support.notifier_backends import Scripted
from tests.support.presentations import make_presentation as presentation


@pytest.mark.parametrize("size", [16, 64, 256])
def test_the_png_becomes_an_ico_with_every_size_up_to_its_own(tmp_path: Path, size: int) -> None:
    ico = ico_for(icon_path(size), tmp_path)
    assert ico.suffix == ".ico" and ico.read_bytes()[:4] == b"\x00\x00\x01\x00"  # ICONDIR, type 1 (icon)
    with Image.open(ico) as image:
        assert image.format == "ICO"
        assert max(image.info["sizes"]) == (size, size)
        assert {(16, 16)} <= image.info["sizes"]
    if sys.platform != "win32":
        assert stat.S_IMODE(ico.stat().st_mode) == 0o600 and stat.S_IMODE(ico.parent.stat().st_mode) == 0o700


def test_the_ico_is_made_once_and_again_for_a_changed_png(tmp_path: Path) -> None:
    png = tmp_path / "severity.png"
    Image.new("RGBA", (32, 32), (200, 0, 0, 255)).save(png)
    first = ico_for(png, tmp_path / "icons")
    assert ico_for(png, tmp_path / "icons") == first
    Image.new("RGBA", (48, 48), (0, 0, 200, 255)).save(png)
    second = ico_for(png, tmp_path / "icons")
    assert second != first
    with Image.open(second) as image:
        assert max(image.info["sizes"]) == (48, 48)
    assert not list((tmp_path / "icons").glob("*.tmp"))


def test_a_png_that_cannot_be_read_is_an_os_error(tmp_path: Path) -> None:
    broken = tmp_path / "broken.png"
    broken.write_bytes(b"not a png")
    with pytest.raises(OSError):
        ico_for(broken, tmp_path)


@pytest.mark.skipif(sys.platform != "win32", reason="plyer's Windows balloon (runs in the Wine lane)")
async def test_a_balloon_that_fails_in_its_thread_falls_back(monkeypatch: pytest.MonkeyPatch) -> None:
    """The balloon gets a PNG (what acp-tray passed before): Windows cannot load it as an icon, the
    balloon fails in the thread it is shown from, and the notice goes to the next backend."""
    monkeypatch.setattr(plyer_backend, "ico_for", lambda png: png, raising=False)
    plyer = PlyerBackend()
    console = Scripted("console")
    chain = NotifierChain([plyer, console])
    assert (await chain.start()).startswith("plyer")
    chain.present(presentation(title="Build failed", severity="error"))
    await chain.drain()
    assert [n.summary for n in console.shown] == ["bot: Build failed"]
    assert chain.delivered == {"plyer": 0, "console": 1}


@pytest.mark.skipif(sys.platform == "win32", reason="the .ico path is the Windows one")
async def test_a_png_that_cannot_be_converted_makes_plyer_unavailable_on_windows(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    broken = tmp_path / "broken.png"
    broken.write_bytes(b"not a png")
    monkeypatch.setattr(sys, "platform", "win32")
    from acp_tray.notifiers.backend import BackendUnavailableError

    with pytest.raises(BackendUnavailableError, match="no Windows icon from"):
        PlyerBackend._icon_file(str(broken))
