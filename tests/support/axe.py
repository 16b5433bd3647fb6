"""axe-core (pinned in tests/a11y, `npm ci --prefix tests/a11y`, which `make test` runs) in a page of
the window: the rules that fail, with their impact and where, for a test to assert that none is
serious or critical.

The window's Content-Security-Policy refuses inline scripts (a script tag of axe would be refused):
axe is evaluated in the page by Playwright, or given to every document a page opens as an init
script (`with_axe`, before `page.goto`); either way the page keeps its CSP, so a violation of it is
still seen (`bypass_csp=True` would have hidden them).
"""

from __future__ import annotations

from functools import cache
from typing import TYPE_CHECKING, Any

from tests.support.browser import unavailable
from tests.support.repo import ROOT

if TYPE_CHECKING:
    from playwright.sync_api import Page

AXE = ROOT / "tests" / "a11y" / "node_modules" / "axe-core" / "axe.min.js"
BAD = ("serious", "critical")  # axe's two worst impacts (the others: minor, moderate)
RUN = """async (within) => {
  const result = await axe.run(within ? {include: [within]} : document, {resultTypes: ["violations"]});
  return result.violations.map(v => ({id: v.id, impact: v.impact, help: v.help,
    nodes: v.nodes.slice(0, 5).map(n => n.target.join(" "))}));
}"""


@cache
def _source() -> str:
    if not AXE.is_file():
        unavailable(f"no axe-core at {AXE} (npm ci --prefix tests/a11y; make test does)")
    return AXE.read_text(encoding="utf-8")


def with_axe(page: Page) -> None:
    """axe-core in every document `page` opens from now on (call it before `page.goto`)."""
    page.add_init_script(script=_source())


def violations(page: Page, within: str | None = None) -> list[dict[str, Any]]:
    """axe-core's serious and critical findings in the page as it is now (or only within the
    elements matching the CSS selector `within`)."""
    if not page.evaluate("typeof axe !== 'undefined'"):
        page.evaluate(_source())
    found: list[dict[str, Any]] = page.evaluate(RUN, within)
    return [v for v in found if v["impact"] in BAD]


def serious_violations(page: Page, within: str | None = None) -> list[str]:
    """The serious and critical findings, one line each: the rule, what it asks, and where."""
    return [f"{v['impact']} {v['id']} ({v['help']}): {', '.join(v['nodes'])}" for v in violations(page, within)]
