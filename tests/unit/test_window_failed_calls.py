"""The window's one answer to a failed call to the daemon (window/failed_calls.py), through the
window's real app and its door, with acp-tray not running (nothing at its control socket): a page
says it in its own words, an htmx change in the page's status line, a part opened as a page gets a
whole page (its nav, its title) that says it, and no route of any page answers with an error 500."""

from __future__ import annotations

import asyncio
import re
from collections.abc import Iterator
from dataclasses import dataclass

import anyio
import pytest
from starlette.routing import Route
from starlette.testclient import TestClient

from acp_tray.window.app import build_app, templates
from acp_tray.window.feed import Feed
from acp_tray.window.keys import new_secret, opening_key
from acp_tray.window.pages import PAGES
from acp_tray.window.render import Parts, Renderer

PORT = 47123  # never listened on: the client calls the app in-process
GONE = "acp-tray is not running any more."


@dataclass
class Opened:
    client: TestClient
    token: str

    def change(self, path: str) -> str:
        """An htmx POST from the window's own page; its answer's text."""
        answer = self.client.post(path, headers=_htmx(self.token), data={})
        assert answer.status_code < 500, (path, answer.status_code, answer.text)
        return answer.text


def _htmx(token: str) -> dict[str, str]:
    return {"HX-Request": "true", "Origin": f"http://127.0.0.1:{PORT}", "X-Acp-Tray-Token": token}


@pytest.fixture
def opened(monkeypatch: pytest.MonkeyPatch) -> Iterator[Opened]:
    monkeypatch.setenv("PYTHON_KEYRING_BACKEND", "keyring.backends.fail.Keyring")  # no secret is kept anywhere
    loop = asyncio.new_event_loop()
    feed = Feed(loop, lambda reason: None)  # never started: the state a daemon that just stopped left
    feed.state = {"agents": [], "approvals": [], "questions": [], "sessions": [], "dnd": "off", "unread": 0}
    feed.ready.set()
    secret = new_secret()
    app = build_app(port=PORT, secret=secret, feed=feed, shutdown=anyio.Event())
    with TestClient(app, base_url=f"http://127.0.0.1:{PORT}") as client:
        first = client.get(f"/open?key={opening_key(secret, PORT)}")
        token = re.search(r'"X-Acp-Tray-Token": "([^"]+)"', first.text)
        assert token is not None, first.text
        yield Opened(client, token.group(1))
    loop.close()


def test_a_page_says_it_in_its_own_words(opened: Opened) -> None:
    shown = opened.client.get("/diagnostics")
    assert shown.status_code == 200 and '<p class="toast problem">' + GONE in shown.text
    assert 'aria-current="page">Diagnostics</a>' in shown.text


def test_a_change_says_it_in_the_pages_status_line(opened: Opened) -> None:
    assert opened.change("/read") == f'<p class="toast problem">{GONE}</p>'


def test_a_part_opened_as_a_page_gets_a_whole_page_that_says_it(opened: Opened) -> None:
    shown = opened.client.get("/preferences/form")  # a link opened in a tab of its own: no htmx
    assert shown.status_code == 503
    assert "<title>Preferences · acp-tray</title>" in shown.text
    assert all(f'<a href="{page.path}"' in shown.text for page in PAGES)
    assert f'<p class="toast problem" role="alert">{GONE}</p>' in shown.text


def test_no_route_of_any_page_answers_with_an_error(opened: Opened) -> None:
    feed = Feed(asyncio.new_event_loop(), lambda reason: None)
    parts = Parts(Renderer(templates(), feed, PAGES), feed, anyio.Event())
    routes = [route for page in PAGES for route in page.routes(parts) if isinstance(route, Route)]
    assert len(routes) > 30
    for route in routes:
        path = re.sub(r"\{[a-z_]+\}", "x", route.path)
        for method in sorted(route.methods or ()):
            if method == "POST":
                opened.change(path)
            elif method == "GET":
                answer = opened.client.get(path, headers={"HX-Request": "true"})
                assert answer.status_code < 500, (path, answer.status_code, answer.text)
