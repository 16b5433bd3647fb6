"""axe-core (tests/a11y, `npm ci --prefix tests/a11y`) run in a page of the window: the rules that
fail, with their impact and where, for a test to assert that none is serious or critical."""

from __future__ import annotations

from functools import cache
from pathlib import Path
from typing import Any

from tests.support.browser import unavailable

AXE = Path(__file__).resolve().parents[1] / "a11y" / "node_modules" / "axe-core" / "axe.min.js"
BAD = ("serious", "critical")
RUN = """async () => {
  const result = await axe.run(document, {resultTypes: ["violations"]});
  return result.violations.map(v => ({id: v.id, impact: v.impact, help: v.help,
    nodes: v.nodes.slice(0, 5).map(n => n.target.join(" "))}));
}"""


@cache
def _source() -> str:
    if not AXE.is_file():
        unavailable(f"no axe-core at {AXE} (npm ci --prefix tests/a11y)")
    return AXE.read_text(encoding="utf-8")


def violations(page: Any) -> list[dict[str, Any]]:
    """axe-core's serious and critical findings on the page as it is now (evaluated, not a script
    tag: the window's CSP allows no inline script)."""
    page.evaluate(_source())
    found: list[dict[str, Any]] = page.evaluate(RUN)
    return [v for v in found if v["impact"] in BAD]
