"""What the window's Preferences page costs the daemon, seen from outside it (strace on the real
daemon while a real browser uses the real window): opening the page is one request, one Save is
one request, and each of them reads the preferences file once."""

from __future__ import annotations

from pathlib import Path

from tests.support.browser import PageFor
from tests.support.daemons import DaemonProcess
from tests.support.syscall_trace import Trace, traced
from tests.support.window import CONSOLE, changed_lines, prefs_daemon, window_process

SHOWS = 10_000  # ms


def costs(trace: Trace, config: Path) -> tuple[list[str], int]:
    """The requests the daemon answered, and how often it read the file while answering them."""
    return [request.op for request in trace.answered()], trace.reads_of(config)


def test_one_save_is_one_request_reading_the_file_once(
    daemons: list[DaemonProcess], page_for: PageFor, tmp_path: Path
) -> None:
    config = prefs_daemon(daemons, CONSOLE)
    before = config.read_text(encoding="utf-8")
    with window_process("preferences") as window:
        watched = page_for("light")
        page = watched.page
        with traced(daemons[-1].proc.pid, tmp_path / "opening") as opening:
            page.goto(window.url)
            page.get_by_role("heading", name="How each severity is shown").wait_for(timeout=SHOWS)
        page.get_by_role("radiogroup", name="Info notices").get_by_label("List only").check()
        with traced(daemons[-1].proc.pid, tmp_path / "saving") as saving:
            page.get_by_role("button", name="Save").click()
            page.get_by_text("Saved.", exact=True).wait_for(timeout=SHOWS)
        assert page.get_by_role("radiogroup", name="Info notices").get_by_label("List only").is_checked()
        assert not watched.problems, watched.problems
    assert changed_lines(before, config.read_text(encoding="utf-8")) == ['- route = "both"', '+ route = "tray"']
    assert costs(opening, config) == (["prefs.get"], 1)  # the form: the file's values, read once
    assert costs(saving, config) == (["prefs.set"], 1)  # checked, written and answered in one request
