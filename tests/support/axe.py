"""Accessibility checks in a real browser with axe-core (pinned in tests/interop/package.json, installed
by `npm ci --prefix tests/interop`, which `make test` runs).

The window's Content-Security-Policy refuses inline scripts, and `page.add_script_tag` inserts one, so
axe is given to the page as an init script (`with_axe`, before the page is opened): Playwright runs
init scripts in every document before the page's own, outside its CSP. The page keeps its CSP, so a
violation of it is still seen (`bypass_csp=True` would have hidden them).

    watched = page_for("dark"); with_axe(watched.page); page.goto(url)
    assert not serious_violations(watched.page), ...
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import pytest

from tests.support.repo import ROOT

if TYPE_CHECKING:
    from playwright.sync_api import Page

AXE = ROOT / "tests" / "interop" / "node_modules" / "axe-core" / "axe.min.js"
SERIOUS = ("serious", "critical")  # axe's two worst impacts (the others: minor, moderate)


def with_axe(page: Page) -> None:
    """axe-core in every document `page` opens from now on (call it before `page.goto`)."""
    if not AXE.is_file():
        pytest.fail(f"no {AXE.relative_to(ROOT)}: run `npm ci --prefix tests/interop` (make test does)")
    page.add_init_script(path=AXE)


def violations(page: Page, within: str | None = None) -> list[dict[str, Any]]:
    """axe's violations of the WCAG 2.x A and AA rules (and its best practices) in the page as it is
    now, or only within the elements matching the CSS selector `within`."""
    found: list[dict[str, Any]] = page.evaluate(
        """async (within) => {
            if (typeof axe === "undefined") throw new Error("axe-core is not in this page: with_axe() before goto()");
            const results = await axe.run(within ? { include: [within] } : document, { resultTypes: ["violations"] });
            return results.violations;
        }""",
        within,
    )
    return found


def serious_violations(page: Page, within: str | None = None) -> list[str]:
    """The serious and critical violations, one line each: the rule, what it asks, and where."""
    return [
        f"{v['impact']} {v['id']} ({v['help']}): {', '.join(str(node['target']) for node in v['nodes'])}"
        for v in violations(page, within)
        if v.get("impact") in SERIOUS
    ]
