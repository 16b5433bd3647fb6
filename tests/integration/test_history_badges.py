"""The History page's severity badges are readable: WCAG AA contrast (4.5:1 for their small text)
between each badge's text and its background as the real browser (Debian's chromium through
Playwright) renders them, in light and dark and at a phone's 390 px, for every severity class.
On main the info badge was 3.68:1 and the other (extension severities) 4.23:1."""

from __future__ import annotations

import pytest

from tests.integration.test_window_pages import history_record, write_history
from tests.support.browser import PageFor
from tests.support.daemons import Daemon
from tests.support.window import headless_daemon, window_process

AA = 4.5  # small text

CONTRASTS = """() => [...document.querySelectorAll('.badge')].map(badge => {
  const style = getComputedStyle(badge);
  const rgb = text => text.match(/[\\d.]+/g).slice(0, 3).map(Number);
  const luminance = colour => {
    const [r, g, b] = rgb(colour).map(v => v / 255).map(c => c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4);
    return 0.2126 * r + 0.7152 * g + 0.0722 * b;
  };
  const [a, b] = [luminance(style.color), luminance(style.backgroundColor)];
  return [badge.textContent.trim(), (Math.max(a, b) + 0.05) / (Math.min(a, b) + 0.05)];
})"""


@pytest.mark.parametrize(("scheme", "width"), [("light", 1280), ("dark", 1280), ("light", 390), ("dark", 390)])
def test_every_severity_badge_on_the_history_page_has_aa_contrast(
    daemons: list[Daemon], page_for: PageFor, scheme: str, width: int
) -> None:
    severities = ("info", "warning", "error", "_acme.tip")
    write_history([history_record(n, "bot", severity, f"notice {n}") for n, severity in enumerate(severities)], [])
    headless_daemon(daemons)
    with window_process("history") as window:
        watched = page_for(scheme, viewport={"width": width, "height": 800})  # type: ignore[arg-type]
        page = watched.page
        page.goto(window.url)
        page.locator("tr.history-row").first.wait_for()
        contrasts = dict(page.evaluate(CONTRASTS))
        assert {"info", "warning", "error", "_acme.tip"} <= set(contrasts), contrasts
        low = {text: round(ratio, 2) for text, ratio in contrasts.items() if ratio < AA}
        assert not low, f"badges under {AA}:1 in {scheme} at {width} px: {low}"
        assert not watched.problems, watched.problems
