"""Item 6 of the security review: a registry entry's icon that freezes a browser tab (an SVG of
under 2 KB whose nested `<use>` elements draw a blurred square 2^18 times) never reaches the page
as an SVG. The Agents page is opened in real chromium against a real daemon, the real window and a
local registry serving the icon, both for a registry entry and for an agent added from it (its
own icon route): every icon the page loads is a PNG acp-tray drew (here the grey disc, as this one
cannot be drawn within the budget), the page answers, and the failure is kept so it is not drawn again.
"""

from __future__ import annotations

import os
import stat
from typing import TYPE_CHECKING
from urllib.parse import urlsplit

import pytest

from acp_tray.assets import no_icon_path
from acp_tray.window.icon_images import icon_cache
from tests.support.browser import PageFor
from tests.support.config import write_config
from tests.support.daemons import DaemonProcess, cli, start
from tests.support.registry_server import RegistryServer, demo_binary, entry, svg_bomb
from tests.support.window import window_process

if TYPE_CHECKING:
    from playwright.sync_api import Response

pytestmark = pytest.mark.usefixtures("whole_groups")

LIVE = 20_000  # ms: an agent's start, a registry read, an icon tried within its budget


def _agent_icon(response: Response) -> bool:
    """An agent's or a registry entry's icon (not the window's own, /icon.png)."""
    path = urlsplit(response.url).path
    return path.startswith("/registry/icons/") or (path.startswith("/manage/") and "/icon." in path)


def test_a_hostile_svg_icon_reaches_the_page_only_as_a_png(
    server: RegistryServer, daemons: list[DaemonProcess], page_for: PageFor
) -> None:
    bomb = svg_bomb()
    server.files["/demo-acp.svg"] = server.files["/bomb.svg"] = bomb
    hostile = entry("bomb-acp", "1.0.0", {"npx": {"package": "bomb-acp"}}, name="Bomb", icon=server.url("/bomb.svg"))
    write_config(registry=server.publish(demo_binary(server, "1.0.0"), hostile))
    start(daemons, own_group=True)
    assert cli("agents", "add", "demo-acp").returncode == 0  # the agent keeps the registry's icon as its own
    with window_process("agents") as window:
        page = page_for("light").page
        loaded: list[Response] = []
        page.on("response", lambda response: loaded.append(response) if _agent_icon(response) else None)
        own_icon = page.expect_response(lambda r: "/manage/demo-acp/icon." in r.url, timeout=LIVE)
        listed_icon = page.expect_response(lambda r: "/registry/icons/bomb-acp." in r.url, timeout=LIVE)
        with own_icon as own, listed_icon as listed:  # the page lists the registry's entries as it opens
            page.goto(window.url)
        assert own.value.headers["content-type"] == "image/png", own.value.headers
        assert listed.value.headers["content-type"] == "image/png", listed.value.headers
        page.get_by_label("Search the registry").fill("bomb")
        page.locator('[data-entry="demo-acp"]').wait_for(state="detached", timeout=LIVE)  # searched
        page.locator('[data-entry="bomb-acp"] img.agent-icon').evaluate("img => img.decode()")
        assert page.evaluate("() => document.querySelectorAll('img.agent-icon').length") >= 2  # the page answers

        placeholder = no_icon_path().read_bytes()
        icons = [(r.url, r.headers.get("content-type", ""), r.body()) for r in loaded]
        assert icons and all(kind == "image/png" for _, kind, _ in icons), [(u, k) for u, k, _ in icons]
        assert all(body == placeholder for _, _, body in icons)  # not drawable within the budget: the grey disc
        assert not [url for url, _, body in icons if b"<svg" in body]
        failed = list(icon_cache().glob("*.failed"))
        assert len(failed) == 1  # the same SVG at both routes: tried once, and not again
        assert stat.S_IMODE(os.stat(failed[0]).st_mode) == 0o600
        assert stat.S_IMODE(os.stat(icon_cache()).st_mode) == 0o700
        again = window.request("GET", "/manage/demo-acp/icon.png")
        assert again.status == 200 and again.headers["Content-Type"] == "image/png"
