"""Tests in a real browser: Playwright's sync API driving Debian's chromium (headless, a fresh profile),
one browser per worker, a fresh context for each page; console errors and CSP violations recorded.

Browser tests are plain `def` tests, never `async def`: Playwright's sync API cannot run inside a
running asyncio loop, and pytest-asyncio (auto mode) runs every `async def` test inside one. Inside a
browser test `asyncio.run` does not work either (Playwright's loop is marked running on the thread
while the test holds the browser); start processes and use the CLI instead.

Fixtures: `chromium` (the worker's browser, started on first use), `browser` (it, for one test),
`page_for(color_scheme="light" | "dark", **context_options)` (a `WatchedPage` in a context of its
own, closed after the test) and `screenshot(page, name)` (a full-page PNG under the test's tmp dir).
Where chromium or Playwright is missing the tests are skipped, except in CI (`CI` set), where that fails.
"""

from __future__ import annotations

import asyncio
import contextlib
import inspect
import os
import shutil
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, NoReturn, Protocol

import pytest

if TYPE_CHECKING:
    from playwright.sync_api import Browser, BrowserContext, ConsoleMessage, Page

CHROMIUM = Path("/usr/lib/chromium/chromium")  # the binary itself: /usr/bin/chromium is a shell wrapper
# Playwright passes these already; listed so that no release of it can drop one: the browser must not
# reach for the (closed) network, and as root it runs only without its sandbox.
ARGS = [
    "--no-sandbox",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]

ColorScheme = Literal["light", "dark"]

CSP_BINDING = "__acpTrayCspViolation"
# Runs in every document before the page's own scripts, as Playwright injects it (no CSP applies to it).
CSP_LISTENER = f"""
document.addEventListener("securitypolicyviolation", (event) => {{
    window.{CSP_BINDING}(`${{event.effectiveDirective}} refused ${{event.blockedURI || "inline"}}`
        + ` at ${{event.sourceFile || event.documentURI}}:${{event.lineNumber}}`);
}});
"""


def chromium_executable() -> str | None:
    """Debian's chromium binary, or whatever `chromium` is on PATH; None when there is none."""
    if os.access(CHROMIUM, os.X_OK):
        return str(CHROMIUM)
    return shutil.which("chromium")


def in_ci() -> bool:
    return os.environ.get("CI", "").strip().lower() not in ("", "0", "false", "no")


def unavailable(reason: str) -> NoReturn:
    """Skip the test for want of the browser; in CI, fail it: there the browser tests must run."""
    if in_ci():
        pytest.fail(f"{reason} (CI is set: the browser tests must run here)", pytrace=False)
    pytest.skip(reason)


class Chromium:
    """Playwright and one headless chromium. Playwright's sync API marks its event loop as running on
    this thread between its calls, which would make every later `async def` test and `asyncio.run` on
    this worker fail ("cannot be called from a running event loop"): the mark is on only while a test
    holds the browser (`attached`)."""

    def __init__(self, executable: str) -> None:
        from playwright.sync_api import sync_playwright

        self._playwright = sync_playwright().start()
        try:
            # launch() gives the browser a fresh profile (a temporary --user-data-dir) and deletes it on close
            self._browser = self._playwright.chromium.launch(executable_path=executable, headless=True, args=ARGS)
        except BaseException:
            self._playwright.stop()
            raise
        self._loop = asyncio.get_running_loop()
        asyncio._set_running_loop(None)  # asyncio's hook for event loops run by others, as Playwright uses it

    @contextlib.contextmanager
    def attached(self) -> Iterator[Browser]:
        """The browser, usable until the block ends."""
        asyncio._set_running_loop(self._loop)
        try:
            yield self._browser
        finally:
            asyncio._set_running_loop(None)

    def close(self) -> None:
        with self.attached():
            self._browser.close()
            self._playwright.stop()


@dataclass
class WatchedPage:
    """A page in a context of its own, with what went wrong in it as it happened: `console_errors`
    (console.error messages, failed loads and uncaught exceptions) and `csp_violations`."""

    page: Page
    console_errors: list[str] = field(default_factory=list)
    csp_violations: list[str] = field(default_factory=list)

    @property
    def problems(self) -> list[str]:
        """Both lists in one: a test asserts it empty."""
        return [*self.console_errors, *self.csp_violations]


def watched(page: Page) -> WatchedPage:
    """`page` with its console errors, uncaught exceptions and CSP violations recorded from now on."""
    found = WatchedPage(page)

    def console(message: ConsoleMessage) -> None:
        if message.type == "error":
            found.console_errors.append(f"{message.text} ({message.location['url']})")

    def csp_violation(text: str) -> None:
        found.csp_violations.append(text)

    page.on("console", console)
    page.on("pageerror", lambda error: found.console_errors.append(f"uncaught {error.name}: {error.message}"))
    page.expose_function(CSP_BINDING, csp_violation)
    page.add_init_script(CSP_LISTENER)
    return found


class PageFor(Protocol):
    """The `page_for` fixture's factory."""

    def __call__(self, color_scheme: ColorScheme = "light", **context_options: Any) -> WatchedPage: ...


class Screenshot(Protocol):
    """The `screenshot` fixture's function."""

    def __call__(self, page: WatchedPage | Page, name: str) -> Path: ...


@pytest.fixture(scope="session")
def chromium() -> Iterator[Chromium]:
    """The worker's browser, started when a test first needs it, closed when the worker ends."""
    executable = chromium_executable()
    if executable is None:
        unavailable(f"no chromium at {CHROMIUM} or on PATH (.ci/system-deps installs Debian's)")
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        unavailable("Playwright is not installed (pip install -e '.[test]')")
    started = Chromium(executable)
    yield started
    started.close()


@pytest.fixture
def browser(chromium: Chromium, request: pytest.FixtureRequest) -> Iterator[Browser]:
    """The worker's browser, for this test (a plain `def` test)."""
    if inspect.iscoroutinefunction(request.function):
        pytest.fail("a browser test is a plain `def` test: Playwright's sync API cannot run in an event loop")
    with chromium.attached() as attached:
        yield attached


@pytest.fixture
def page_for(browser: Browser) -> Iterator[PageFor]:
    """`page_for(color_scheme="dark")`: a new page in a fresh context (no cookies, no storage) with that
    `prefers-color-scheme`; other keywords go to `Browser.new_context` (viewport, base_url, ...)."""
    contexts: list[BrowserContext] = []

    def open_page(color_scheme: ColorScheme = "light", **context_options: Any) -> WatchedPage:
        context = browser.new_context(color_scheme=color_scheme, **context_options)
        contexts.append(context)
        return watched(context.new_page())

    yield open_page
    for context in contexts:
        context.close()


@pytest.fixture
def screenshot(tmp_path: Path) -> Screenshot:
    """`screenshot(page, name)`: the whole page as tmp_path/screenshots/NAME.png (returned)."""

    def take(page: WatchedPage | Page, name: str) -> Path:
        path = tmp_path / "screenshots" / f"{name}.png"
        path.parent.mkdir(exist_ok=True)
        # caret="initial": Playwright's caret hiding writes style="" on every text field, which htmx then
        # copies onto the fields that replace them (a settle), and the CSP refuses: a problem of the picture only
        shot = page.page if isinstance(page, WatchedPage) else page
        shot.screenshot(path=path, full_page=True, caret="initial")
        return path

    return take
