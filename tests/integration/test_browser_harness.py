"""The browser tests' harness (tests/support/browser.py) on a small Starlette app: Debian's chromium
loads the vendored htmx and its SSE extension under `Content-Security-Policy: default-src 'self'`,
gets server-sent events live, in light and dark; the harness sees console errors and CSP violations;
and the worker's browser leaves asyncio to the tests that run after it."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable, Iterator

import pytest
from sse_starlette import EventSourceResponse
from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from tests.support.browser import Chromium, PageFor, Screenshot, WatchedPage
from tests.support.repo import ROOT
from tests.support.web_server import serve

STATIC = ROOT / "src" / "acp_tray" / "window" / "static"
CSP = "default-src 'self'"
HTMX_CONFIG = '{"includeIndicatorStyles": false, "allowEval": false, "allowScriptTags": false}'
PNG = b"\x89PNG\r\n\x1a\n"

LIVE = f"""<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>harness</title>
<meta name="htmx-config" content='{HTMX_CONFIG}'>
<link rel="stylesheet" href="/page.css">
<script src="/static/vendor/htmx.min.js"></script>
<script src="/static/vendor/sse.min.js"></script>
</head>
<body>
<h1>Live</h1>
<div hx-ext="sse" sse-connect="/ticks"><p>Ticks: <output id="ticks" sse-swap="tick">none yet</output></p></div>
</body>
</html>
"""
STILL = """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>still</title><link rel="stylesheet" href="/page.css"></head>
<body><h1>Still</h1><p>The same in both pictures but for the colours.</p></body></html>
"""
# what the CSP refuses: an inline script and style; and a script of its own that throws
REFUSED = """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>refused</title>
<style>body { color: red; }</style>
<script>window.inlineRan = true;</script>
<script src="/throws.js"></script>
</head><body><p>refused</p></body></html>
"""


class ContentSecurityPolicy:
    """Every response with the window's policy header."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        async def with_policy(message: Message) -> None:
            if message["type"] == "http.response.start":
                message["headers"] = [*message.get("headers", []), (b"content-security-policy", CSP.encode())]
            await send(message)

        await self.app(scope, receive, with_policy)


async def ticks(request: Request) -> EventSourceResponse:
    async def count() -> AsyncIterator[dict[str, str]]:
        for tick in range(1, 1000):
            yield {"event": "tick", "data": str(tick)}
            await asyncio.sleep(0.1)

    return EventSourceResponse(count())


def page(body: str, media_type: str = "text/html") -> Callable[[Request], Response]:
    return lambda request: Response(body, media_type=media_type)


APP = Starlette(
    routes=[
        Route("/", page(LIVE)),
        Route("/still", page(STILL)),
        Route("/refused", page(REFUSED)),
        Route("/ticks", ticks),
        Route("/page.css", page(":root { color-scheme: light dark; font-family: system-ui, sans-serif; }", "text/css")),
        Route("/throws.js", page("throw new Error('thrown by the page');", "text/javascript")),
        Route("/favicon.ico", lambda request: Response(status_code=204)),  # no 404 in the console
        Mount("/static", StaticFiles(directory=STATIC)),
    ],
    middleware=[Middleware(ContentSecurityPolicy)],
)


@pytest.fixture(scope="module")
def site() -> Iterator[str]:
    with serve(APP) as url:
        yield url


def ticks_seen(tab: WatchedPage) -> int:
    text = tab.page.text_content("#ticks") or ""
    return int(text) if text.isdigit() else 0


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_vendored_htmx_gets_server_sent_events_live_under_the_csp(
    site: str, page_for: PageFor, screenshot: Screenshot, scheme: str
) -> None:
    tab = page_for("dark" if scheme == "dark" else "light", viewport={"width": 640, "height": 360})
    response = tab.page.goto(site)
    assert response is not None and response.headers["content-security-policy"] == CSP
    # the function form: a bare expression would need eval, which the CSP refuses
    tab.page.wait_for_function("() => Number(document.querySelector('#ticks').textContent) >= 2", timeout=5000)
    first = ticks_seen(tab)
    tab.page.wait_for_function(
        f"() => Number(document.querySelector('#ticks').textContent) >= {first + 3}", timeout=5000
    )
    assert tab.page.evaluate("() => htmx.version") == "2.0.11"
    assert tab.page.evaluate("() => document.querySelectorAll('style').length") == 0, "htmx injected a <style>"
    assert tab.page.evaluate("() => matchMedia('(prefers-color-scheme: dark)').matches") is (scheme == "dark")
    shot = screenshot(tab, f"live-{scheme}")
    assert shot.read_bytes().startswith(PNG)
    assert tab.problems == []


def test_light_and_dark_look_different(site: str, page_for: PageFor, screenshot: Screenshot) -> None:
    shots = []
    for scheme in ("light", "dark"):
        tab = page_for(scheme)
        tab.page.goto(f"{site}/still")
        assert tab.problems == []
        shots.append(screenshot(tab, scheme).read_bytes())
    assert shots[0] != shots[1]


def test_the_harness_records_csp_violations_and_errors(site: str, page_for: PageFor) -> None:
    tab = page_for()
    tab.page.goto(f"{site}/refused")
    tab.page.wait_for_load_state("load")
    assert tab.page.evaluate("() => window.inlineRan === undefined")
    directives = {violation.split(" ", 1)[0] for violation in tab.csp_violations}
    assert {"script-src-elem", "style-src-elem"} <= directives, tab.csp_violations
    assert any("thrown by the page" in error for error in tab.console_errors), tab.console_errors
    assert tab.problems == tab.console_errors + tab.csp_violations


def test_the_worker_s_browser_leaves_asyncio_to_other_tests(chromium: Chromium) -> None:
    """What a later `async def` test or `asyncio.run` on this worker needs: no event loop marked running."""
    asyncio.run(asyncio.sleep(0))
    with chromium.attached() as browser:
        context = browser.new_context()
        context.new_page().goto("about:blank")
        context.close()
    asyncio.run(asyncio.sleep(0))
