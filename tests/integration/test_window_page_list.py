"""The window's pages as one list declares them (window/pages/__init__.py), in a real browser
against a real daemon: every page the tray and `acp-tray ui --page` can open is in it, opens at its
address with its title, and every page's nav is that list, in its order, with the page shown marked."""

from __future__ import annotations

from typing import get_args

from acp_tray.presentation.actions import WindowPage
from acp_tray.window.pages import PAGES
from tests.support.browser import PageFor
from tests.support.daemons import DaemonProcess
from tests.support.window import headless_daemon, window_process


def test_every_page_opens_with_the_lists_nav_and_title(daemons: list[DaemonProcess], page_for: PageFor) -> None:
    assert sorted(page.name for page in PAGES) == sorted(get_args(WindowPage))  # none the tray opens is missing
    headless_daemon(daemons)
    listed = [(page.title, page.path) for page in PAGES]
    with window_process() as window:
        watched = page_for("light")
        browser = watched.page
        browser.goto(window.url)
        for page in PAGES:
            browser.goto(f"http://127.0.0.1:{window.port}{page.path}")
            assert browser.title() == f"{page.title} · acp-tray"
            links = browser.locator("header nav a")
            shown = [(links.nth(n).inner_text(), links.nth(n).get_attribute("href")) for n in range(links.count())]
            assert shown == listed, page.name
            current = browser.locator('header nav a[aria-current="page"]')
            assert current.count() == 1 and current.inner_text() == page.title
        assert not watched.problems, watched.problems
