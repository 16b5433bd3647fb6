"""The window's diagnostics page in a real browser against a real daemon: `acp-tray doctor`'s
checks as the daemon runs them (the `diagnostics` op: `doctor` as a child process in the daemon's
desktop, told its tray), problems first, each with its fix; and `acp-tray ui --page diagnostics`
opens it."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

from acp_tray.control import api
from acp_tray.control.client import request
from acp_tray.files import paths
from tests.support.browser import PageFor
from tests.support.daemons import DaemonProcess, cli_env
from tests.support.window import headless_daemon, shows_page, window_process

GONE = '[agents.gone]\ncommand = ["no-such-agent-xyz"]\n'
HERE = f'[agents.here]\ncommand = ["{sys.executable}", "-m", "acp_tray", "demo-agent"]\n'


def test_the_diagnostics_op_runs_doctors_checks_in_the_daemon(daemons: list[DaemonProcess]) -> None:
    headless_daemon(daemons, HERE, GONE)
    checks = {check["name"]: check for check in request(api.DIAGNOSTICS, api.Args())}
    assert checks["agent gone"] == {
        "name": "agent gone",
        "status": "problem",
        "detail": "program 'no-such-agent-xyz' not found on PATH",
        "fix": "install it, or give its full path in [agents.gone] command",
    }
    assert checks["agent here"]["status"] == "ok"
    # what only the daemon knows: it runs no tray (headless); and it is the one running
    assert checks["tray backend"]["detail"] == "no tray icon in this daemon (headless, or none could start)"
    assert checks["control socket"]["status"] == "ok" and checks["control socket"]["detail"].endswith("is running")


def test_the_checks_run_in_the_daemons_desktop_and_leave_nothing_loaded_in_it(
    desktop: Any, daemons: list[DaemonProcess]
) -> None:
    config = paths.config_file()
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text('notifier = "console"\n', encoding="utf-8")
    daemon = DaemonProcess("run", "--headless", env=cli_env(**desktop.env))  # its desktop: a bus, dunst, Xvfb
    daemons.append(daemon)
    daemon.wait_for_line("control: ")
    checks = {check["name"]: check for check in request(api.DIAGNOSTICS, api.Args())}
    assert checks["notification server"]["status"] == "ok" and "dunst" in checks["notification server"]["detail"]
    assert checks["PyGObject"]["status"] == "ok"
    # run by a child process: the D-Bus client and PyGObject never loaded into the daemon
    maps = Path(f"/proc/{daemon.proc.pid}/maps").read_text(encoding="utf-8")
    assert "dbus_fast" not in maps and "/gi/_gi" not in maps


def test_the_page_shows_the_checks_problems_first_with_their_fixes(
    daemons: list[DaemonProcess], page_for: PageFor
) -> None:
    headless_daemon(daemons, HERE, GONE)
    with window_process("diagnostics") as window:
        watched = page_for("dark")
        page = watched.page
        page.goto(window.url)
        shows_page(page, window, "Diagnostics")
        checks = page.locator("li.check")
        statuses = [checks.nth(n).get_attribute("data-status") for n in range(checks.count())]
        assert statuses.count("problem") >= 1 and statuses == sorted(statuses, key=lambda s: s != "problem")
        gone = page.locator('li.check[data-check="agent gone"]')
        assert gone.get_attribute("data-status") == "problem"
        assert "program 'no-such-agent-xyz' not found on PATH" in gone.inner_text()
        assert "Fix: install it, or give its full path in [agents.gone] command" in gone.inner_text()
        backend = page.locator('li.check[data-check="tray backend"]').inner_text()
        assert "no tray icon in this daemon" in backend
        verdict = page.locator("p.verdict").inner_text()
        assert verdict.endswith("fix below.") and verdict.split()[0] == str(statuses.count("problem"))
        ok = page.locator('li.check[data-check="agent here"]')
        assert ok.get_attribute("data-status") == "ok" and "Fix:" not in ok.inner_text()
        page.get_by_role("link", name="Check again").click()
        page.wait_for_load_state()
        assert page.locator('li.check[data-check="agent gone"]').count() == 1
        assert not watched.problems, watched.problems
