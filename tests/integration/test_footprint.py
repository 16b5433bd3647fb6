"""The daemon's footprint while it hosts a real agent: it does not wake when nothing happens, and it
imports only what it uses (the ACP SDK's framing and transports, not its schema models; no file
watcher that polls; tomlkit only to change the preferences file; no font engine for the icon; not
the CLI's commands that talk to a daemon, with their control client; difflib only to suggest a
key in a broken preferences file; not the notifiers of other platforms; nothing of the window, which
is a process of its own, nor its web stack; not Apprise, nor the keyring, without a push target; not
the registry's downloading and unpacking, which `agents add` does: the daemon only reads what it
installed).

Wake-ups are counted as the kernel counts them (`tests.support.wakeups`); `benchmarks/tray_idle.py`
measures the same with the tray, and RSS, against a bare pystray icon.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest

from acp_tray.control import api
from acp_tray.control.client import request
from acp_tray.demo.agent import DEMO_NOTICES
from tests.support.daemons import DaemonProcess, cli, cli_env
from tests.support.wakeups import switches, wakeups

QUIET_WINDOW = 2.0  # s in which nothing happens (a count of wake-ups is asserted, never a duration)
MOST_WAKEUPS = 3  # none expected; a tick of 20 ms-1 s would give 2-100
WAIT = 5.0  # s: an `agents wait` that outlasts the quiet window

# `acp-tray ARGS` that says at exit which of these modules it had loaded
REPORTING = """
import atexit, sys
HEAVY = ("acp.schema", "acp.agent", "acp.client", "anyio", "watchfiles", "tomlkit", "PIL.ImageFont",
         "acp_tray.cli.calls", "acp_tray.control.client", "difflib",
         "acp_tray.window", "starlette", "uvicorn", "jinja2", "sse_starlette",  # the window is a process of its own
         "apprise", "keyring", "requests",  # push: only with a target (none here), its URL in the keyring
         "acp_tray.registry.install", "tarfile", "urllib.request")  # installing agents: never the daemon's
atexit.register(lambda: print("loaded:", *[m for m in HEAVY if m in sys.modules], flush=True))
from acp_tray.cli import main
sys.exit(main(sys.argv[1:]))
"""


def demo_config(tmp_path: Path) -> Path:
    config = tmp_path / "config.toml"
    demo = json.dumps([sys.executable, "-m", "acp_tray", "demo-agent", "--interval", "0"])
    config.write_text(f"[agents.demo]\ncommand = {demo}\n", encoding="utf-8")
    return config


def hosting(tmp_path: Path, daemons: list[DaemonProcess]) -> DaemonProcess:
    """The headless daemon (its loop, control socket, history, prefs watcher) with the demo agent
    connected and its opening notices shown."""
    daemon = DaemonProcess(
        "run", "--headless", "--config", str(demo_config(tmp_path)), program=[sys.executable, "-c", REPORTING]
    )
    daemons.append(daemon)
    daemon.wait_for_lines(*(notice["title"] for notice in DEMO_NOTICES))
    return daemon


@pytest.mark.skipif(sys.platform != "linux", reason="counted from /proc")
def test_an_idle_daemon_hosting_an_agent_does_not_wake(tmp_path: Path, daemons: list[DaemonProcess]) -> None:
    daemon = hosting(tmp_path, daemons)
    time.sleep(1.0)  # the last notice's history line and console output are done
    before = switches(daemon.proc.pid)
    time.sleep(QUIET_WINDOW)
    idle = wakeups(before, switches(daemon.proc.pid))
    assert idle <= MOST_WAKEUPS, f"the idle daemon woke {idle} times in {QUIET_WINDOW:g} s"
    status = cli("status", "--json")
    assert [agent["state"] for agent in json.loads(status.stdout)["agents"]] == ["connected"]  # idle, not gone


def test_hosting_an_agent_loads_none_of_what_it_does_not_use(tmp_path: Path, daemons: list[DaemonProcess]) -> None:
    daemon = hosting(tmp_path, daemons)
    assert daemon.stop() == 0
    assert daemon.wait_for_line("loaded:") == "loaded:"  # none of them


def test_the_sdk_package_still_loads_whole_when_asked() -> None:
    """Registering the SDK's package without its `__init__` loses nothing for code that asks for it."""
    script = """
import sys
import acp_tray.agents
from acp.exceptions import RequestError
assert "acp.schema" not in sys.modules
import acp
from acp import Agent, RequestError as Exported, schema
assert Exported is RequestError and acp.schema is schema and "acp.schema" in sys.modules
print(acp.PROTOCOL_VERSION, Agent.__name__, schema.SessionNotification.__name__)
"""
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == ["1", "Agent", "SessionNotification"]


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="what `auto` chooses on Linux")
def test_the_notifiers_chosen_on_linux_load_no_other_platform_s() -> None:
    """`auto` on Linux is freedesktop then the console: the macOS (osascript), plyer and Windows
    (.ico) backends are not imported, nor what they import."""
    script = """
import sys
from acp_tray.notifiers.console import ConsoleNotifier
from acp_tray.notifiers.select import backends_for
chosen = backends_for("auto", ConsoleNotifier(), lambda action: None)
print(*[type(backend).__name__ for backend in chosen])
others = ("acp_tray.notifiers.osascript", "acp_tray.notifiers.plyer_backend", "acp_tray.notifiers.ico", "plyer")
print("loaded:", *[m for m in others if m in sys.modules])
"""
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines() == ["FreedesktopBackend ConsoleBackend", "loaded:"]


def test_opening_a_running_window_loads_neither_the_control_api_nor_the_server_start(
    daemons: list[DaemonProcess],
) -> None:
    """The tray's "Open acp-tray…" runs `acp-tray ui` each time: with the window's server running,
    that command only reads where it is (the standard library), so the window opens at once: the
    server's challenge is asked over a plain socket, without the standard library's HTTP client (and
    the email parser and TLS it loads)."""
    from tests.support.window import end, headless_daemon, open_window

    headless_daemon(daemons)
    window = open_window()  # started: the daemon was asked, the server started
    try:
        script = """
import atexit, sys
HEAVY = ("acp_tray.control.api", "acp_tray.control.client", "acp_tray.window.server_start", "pydantic", "subprocess",
         "http.client", "email", "ssl", "acp_tray.control.streamed")
atexit.register(lambda: print("loaded:", *[m for m in HEAVY if m in sys.modules], flush=True))
from acp_tray.cli import main
sys.exit(main(sys.argv[1:]))
"""
        shown = subprocess.run(
            [sys.executable, "-c", script, "ui", "--no-browser", "--page", "history"],
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert shown.returncode == 0, shown.stderr
        address, loaded = shown.stdout.strip().splitlines()
        assert address.startswith(f"http://127.0.0.1:{window.port}/open?") and "page=history" in address
        assert loaded == "loaded:"
    finally:
        end(window.pid)


@pytest.mark.skipif(sys.platform != "linux", reason="counted from /proc")
def test_a_daemon_waiting_for_an_agent_to_connect_does_not_wake_while_it_starts(
    tmp_path: Path, daemons: list[DaemonProcess]
) -> None:
    """`agents wait` (what `agents add` and the window's sign-in wait on) for an agent that is slow
    to answer: the daemon is woken by the agent's status changes, not by a tick, and the wait ends
    at its timeout with the agent still starting."""
    config = tmp_path / "config.toml"
    slow = json.dumps([sys.executable, "-c", "import time; time.sleep(600)"])  # never answers `initialize`
    config.write_text(f'notifier = "console"\n[agents.slow]\ncommand = {slow}\n', encoding="utf-8")
    daemon = DaemonProcess("run", "--headless", "--config", str(config))
    daemons.append(daemon)
    daemon.wait_for_lines("control: ", "  slow  starting")
    with ThreadPoolExecutor(1) as pool:
        reply = pool.submit(request, api.AGENTS_WAIT, api.WaitArgs("slow", timeout=WAIT), timeout=WAIT + 30)
        time.sleep(1.0)  # the wait has begun
        before = switches(daemon.proc.pid)
        time.sleep(QUIET_WINDOW)
        woke = wakeups(before, switches(daemon.proc.pid))
        waited = reply.result()
    assert woke <= MOST_WAKEUPS, f"the daemon woke {woke} times in {QUIET_WINDOW:g} s while a wait was under way"
    assert (waited["connected"], waited["ready"], waited["state"]) == (False, False, "starting")


# `acp-tray ARGS` that says, as its tray's loop starts (the icon is shown from there), which programs it
# had run, which files it had written under the data home, and which of these modules it had loaded
BEFORE_THE_ICON = """
import os, sys
from acp_tray.tray import app as tray_app

ran, wrote = [], []
data_home = os.environ["XDG_DATA_HOME"]
WRITE = os.O_WRONLY | os.O_RDWR | os.O_CREAT

def audit(event, args):
    if event == "subprocess.Popen":
        ran.append(os.path.basename(str(args[1][0] if args[1] else args[0])))
    elif event == "open" and str(args[0]).startswith(data_home):
        mode, flags = args[1], args[2]
        if (mode is not None and any(c in mode for c in "wax+")) or (mode is None and flags & WRITE):
            wrote.append(os.path.relpath(str(args[0]), data_home))

sys.addaudithook(audit)
loop = tray_app.TrayApp.run

def run(self, *args, **kwargs):
    loaded = [m for m in ("acp_tray.control.api", "acp_tray.control.server") if m in sys.modules]
    print("before the icon:", "ran", *ran, "· wrote", *wrote, "· loaded", *loaded, flush=True)
    loop(self, *args, **kwargs)

tray_app.TrayApp.run = run
from acp_tray.cli import main
sys.exit(main(sys.argv[1:]))
"""


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the GTK tray on a real X display and session bus")
def test_the_tray_icon_waits_for_no_program_no_file_and_no_control_api(
    desktop: Any, tmp_path: Path, daemons: list[DaemonProcess]
) -> None:
    """Every start, before the icon: no program run (finding GIO's library by `ldconfig -p` forked the
    whole process), not the control API (only the daemon's server needs it), and at the first start
    not the app-menu launcher's files, written and synced behind the icon (there by the time the
    daemon serves)."""
    pytest.importorskip("gi", reason="PyGObject is needed for the GTK tray (make test installs it)")
    env = cli_env(**desktop.env, NO_AT_BRIDGE="1", ACP_TRAY_DEMO_INTERVAL="0.05")
    daemon = DaemonProcess(
        "run", "--config", str(demo_config(tmp_path)), env=env, program=[sys.executable, "-c", BEFORE_THE_ICON]
    )
    daemons.append(daemon)
    assert "appindicator" in daemon.wait_for_line("tray: pystray"), "the StatusNotifierItem tray is what runs here"
    before = daemon.wait_for_line("before the icon:")
    assert before == "before the icon: ran · wrote · loaded"
    daemon.wait_for_line("control: ")
    entry = Path(os.environ["XDG_DATA_HOME"]) / "applications" / "acp-tray.desktop"
    assert entry.is_file(), "the first start's launcher entry, written behind the icon"
    assert cli("quit").returncode == 0
    assert daemon.proc.wait(15) == 0
