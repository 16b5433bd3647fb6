"""The window's process loads what the page it shows needs, not every page's parts: opened on its
Overview (and asked for its own stylesheet and icon), it has not imported the registry's reading and
installing, the agents' icons (the SVG renderer), the OS keyring's names, start on login, the app-menu
launcher, push targets, the preferences file's model, the domain events or the Sessions page's
prompt runs; those come in when their page is first used (the Agents page still lists the registry's
agents, its Preferences the Start on login switch: tests/integration/test_window_agents.py,
test_window_start_on_login.py). `benchmarks/window.py` measures its start and memory against a bare
Starlette app."""

from __future__ import annotations

import sys

from acp_tray.window.where import running
from tests.support.daemons import DaemonProcess, cli_env
from tests.support.waiting import until
from tests.support.window import end, headless_daemon, open_window

# `acp-tray window-server` that says on stderr, as it ends, which of these it had loaded
REPORTING = """
import atexit, sys
WATCHED = ("acp_tray.registry", "acp_tray.window.registry_pages", "acp_tray.window.agent_admin",
           "acp_tray.window.icon_images", "acp_tray.tray", "acp_tray.state", "acp_tray.autostart",
           "acp_tray.desktop.menu_entry", "acp_tray.push", "pydantic", "acp_tray.prefs.model",
           "acp_tray.events", "acp_tray.protocol.session", "acp_tray.window.prompt_runs", "PIL",
           "tarfile", "urllib.request", "starlette.staticfiles")
atexit.register(lambda: print("loaded:", *[m for m in WATCHED if m in sys.modules], file=sys.stderr, flush=True))
from acp_tray.cli import main
sys.exit(main(sys.argv[1:]))
"""


def test_the_window_opened_on_its_overview_loads_no_other_page_s_parts(daemons: list[DaemonProcess]) -> None:
    headless_daemon(daemons)
    server = DaemonProcess("window-server", env=cli_env(), program=[sys.executable, "-c", REPORTING])
    try:
        until(lambda: (found := running()) is not None and found.pid == server.proc.pid, what="the window's record")
        window = open_window()  # `acp-tray ui --no-browser` finds it running
        assert window.pid == server.proc.pid
        overview = window.request("GET", "/overview")
        assert overview.status == 200 and "Overview" in overview.body
        style, icon = window.request("GET", "/static/app.css"), window.request("GET", "/icon.png")
        assert style.status == 200 and style.headers["Content-Type"].startswith("text/css")
        assert icon.status == 200 and icon.headers["Content-Type"] == "image/png"
        assert window.request("GET", "/static/nowhere.js").status == 404
        assert server.stop() == 0  # SIGINT: it ends as on Ctrl+C, its exit handlers run
    finally:
        end(server.proc.pid)
    server.wait_for_stderr("loaded:")
    assert [line for line in server.err_lines if line.startswith("loaded:")] == ["loaded:"]  # none of them
