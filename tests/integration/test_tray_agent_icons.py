"""A registry agent's SVG icon beside it in the tray's Agents menu: the real pystray GTK menu under
Xvfb in a tray host, the icon drawn by librsvg (through GdkPixbuf) in the menu's text colour."""

from __future__ import annotations

import contextlib
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.support.daemons import carrying, cli_env
from tests.support.registry_server import ICON, svg_bomb
from tests.support.trays import docked, icon_centre, screenshot, start_host, xdotool
from tests.support.waiting import until

MENU_SCRIPT = """
import json, sys, threading, time
from acp_tray.events import AgentState
from acp_tray.tray.app import TrayApp, load_pystray
from acp_tray.tray.snapshot import AgentRow, TraySnapshot

pystray, backend = load_pystray()
app = TrayApp(pystray, lambda action: None)

def inspect():
    menu = app.icon._menu_handle
    agents = next(i for i in menu.get_children() if i.get_label() == "Agents").get_submenu()
    rows = {}
    for item in agents.get_children():
        image = item.get_image() if hasattr(item, "get_image") else None
        pixbuf = image.get_pixbuf() if image is not None else None
        if pixbuf is None:
            rows[item.get_label()] = None
            continue
        pixels, step = pixbuf.get_pixels(), pixbuf.get_n_channels()
        inked = [tuple(pixels[i:i + 3]) for i in range(0, len(pixels), step) if pixels[i + 3] > 128]
        rows[item.get_label()] = {"size": [pixbuf.get_width(), pixbuf.get_height()], "inked": len(inked),
                                  "colours": sorted(set(inked))[:3], "submenu": item.get_submenu() is not None}
    print(json.dumps({"backend": backend, "rows": rows}), flush=True)
    app.stop()
    return False

def drawn():
    menu = app.icon._menu_handle
    agents = next(i for i in menu.get_children() if i.get_label() == "Agents").get_submenu()
    return any(hasattr(i, "get_image") and i.get_image() is not None for i in agents.get_children())

def later():
    time.sleep(1.0)
    app.show(TraySnapshot(agents=(AgentRow("codex-acp", AgentState.CONNECTED, icon=sys.argv[1]),
                                  AgentRow("plain", AgentState.STOPPED),
                                  AgentRow("broken", AgentState.STOPPED, icon=sys.argv[2]))))
    from gi.repository import GLib
    while not drawn():  # icons are drawn off GTK's loop, then the menu is built again with them
        time.sleep(0.1)
    GLib.idle_add(inspect)

app.run(setup=lambda: threading.Thread(target=later, daemon=True).start(), on_signal=app.stop)
"""


def test_a_registry_agent_shows_its_icon_in_the_agents_menu(tray_host: dict[str, str], tmp_path: Path) -> None:
    icon = tmp_path / "icon.svg"
    icon.write_bytes(ICON)
    broken = tmp_path / "broken.svg"
    broken.write_bytes(b"<svg this is not")
    app = subprocess.run(
        [sys.executable, "-c", MENU_SCRIPT, str(icon), str(broken)],
        env=tray_host,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert app.returncode == 0, app.stderr
    report = json.loads(app.stdout.strip().splitlines()[-1])
    rows = report["rows"]
    codex = rows["codex-acp — connected"]
    assert codex is not None and codex["size"] == [16, 16] and codex["submenu"], report
    assert codex["inked"] > 40  # the OpenAI knot, drawn: not an empty square
    assert all(max(c) < 128 for c in codex["colours"]), report  # currentColor: the theme's dark menu text, not white
    assert rows["plain — stopped"] is None  # no icon: pystray's own item
    assert rows["broken — stopped"] is None  # an SVG that cannot be drawn: no icon, no crash
    assert "Traceback" not in app.stderr


async def test_the_daemon_hands_the_tray_the_icon_agents_add_kept(tmp_path: Path) -> None:
    """`agents add ID` keeps the icon in the data dir; the daemon's snapshot names it for the tray."""
    from acp_tray.events import AgentState
    from acp_tray.files import paths
    from tests.support.in_process import scripted_agent_config, start_in_process
    from tests.support.waiting import until_async

    icon = paths.agent_icon("bot")
    icon.parent.mkdir(parents=True)
    icon.write_bytes(ICON)
    _, snapshots, _, stop, task = start_in_process(tmp_path, scripted_agent_config(tmp_path, []))
    try:
        await until_async(lambda: bool(snapshots) and snapshots[-1].agents[0].state is AgentState.CONNECTED)
        assert snapshots[-1].agents[0].icon == str(icon)
    finally:
        stop.set()
        await task


BOMB_SCRIPT = """
import json, logging, sys, threading, time
from acp_tray.events import AgentState
from acp_tray.tray.app import TrayApp, load_pystray
from acp_tray.tray.snapshot import AgentRow, TraySnapshot

logging.basicConfig(level=logging.INFO, stream=sys.stderr, format="%(message)s")
pystray, backend = load_pystray()
app = TrayApp(pystray, lambda action: None)

def menu_ready():
    ready = []
    def look():
        menu = app.icon._menu_handle
        agents = next(i for i in menu.get_children() if i.get_label() == "Agents").get_submenu()
        rows = [item.get_label() for item in agents.get_children()]
        assert rows[-2:] == ["", "Add agent…"], rows  # a line, then "Add agent…", after the agents
        ready.append(sorted(rows[:-2]))
        return False
    from gi.repository import GLib
    GLib.idle_add(look)
    while not ready:
        time.sleep(0.05)
    return ready[0]

def later():
    labels = []
    # five menus in a row, each naming the bomb: each is built at once, without its icon
    states = (AgentState.STARTING, AgentState.CONNECTED, AgentState.STOPPED) * 2
    for state in states[:5]:
        app.show(TraySnapshot(agents=(AgentRow("bomb", state, icon=sys.argv[1]), AgentRow("plain", state))))
        labels.append(menu_ready())
    print(json.dumps({"labels": labels}), flush=True)
    app.stop()  # while the bomb may still be drawing: it is ended, the tray stops

app.run(setup=lambda: threading.Thread(target=later, daemon=True).start(), on_signal=app.stop)
"""


def _drawing_processes(mark: str) -> list[int]:
    """The icon-drawing processes started under this test's `mark` (an environment variable the
    drawing process inherits): another test's, running beside it, are not this test's to count."""
    found = []
    for pid in carrying((int(entry.name) for entry in Path("/proc").iterdir() if entry.name.isdigit()), mark):
        with contextlib.suppress(OSError):
            if b"acp_tray.tray.icon_raster" in Path(f"/proc/{pid}/cmdline").read_bytes():
                found.append(pid)
    return found


def test_an_icon_that_takes_forever_to_draw_never_holds_up_the_menu(tray_host: dict[str, str], tmp_path: Path) -> None:
    """A 1.5 KB SVG (`<use>` fan-out 2^19 with a blur) takes librsvg half a minute or more: the
    menu is built at once without it, five times in a row, it is tried once (the failure is
    remembered), and the tray stops at once even while it is being drawn; no drawing process is left."""
    bomb = tmp_path / "bomb.svg"
    bomb.write_bytes(svg_bomb())
    mark = f"ACP_TRAY_TEST_MARK={tmp_path}"
    env = {**tray_host, "ACP_TRAY_TEST_MARK": str(tmp_path)}
    app = subprocess.run(
        [sys.executable, "-c", BOMB_SCRIPT, str(bomb)], env=env, capture_output=True, text=True, timeout=60
    )
    assert app.returncode == 0, app.stderr
    report = json.loads(app.stdout.strip().splitlines()[-1])
    assert [labels[0] for labels in report["labels"]] == [
        "bomb — starting",
        "bomb — connected",
        "bomb — stopped",
        "bomb — starting",
        "bomb — connected",
    ], report
    assert app.stderr.count(f"no menu icon from {bomb}") <= 1, app.stderr  # tried once, not at every menu
    assert "Traceback" not in app.stderr
    assert _drawing_processes(mark) == []


ACTIVATE_SCRIPT = """
import sys, threading, time
from acp_tray.tray.app import TrayApp, load_pystray
from acp_tray.tray.snapshot import TraySnapshot

pystray, backend = load_pystray()
chosen = []
app = TrayApp(pystray, chosen.append)

def later():
    app.show(TraySnapshot())
    print("backend", backend, flush=True)
    deadline = time.monotonic() + 30
    while not chosen and time.monotonic() < deadline:
        time.sleep(0.1)
    print("chosen", *chosen, flush=True)
    app.stop()

app.run(setup=lambda: threading.Thread(target=later, daemon=True).start(), on_signal=app.stop)
"""


def test_a_left_click_on_the_icon_opens_the_window_where_the_backend_activates(desktop: Any, tmp_path: Path) -> None:
    """GTK's status icon in an XEmbed tray (trayer): a left click is the icon's activate action, which
    is the menu's default entry, "Open acp-tray…"."""
    pytest.importorskip("gi", reason="PyGObject is needed for the GTK tray (make test installs it)")
    env = cli_env(**desktop.env, NO_AT_BRIDGE="1", PYSTRAY_BACKEND="gtk")
    host = start_host("trayer", env)
    app = subprocess.Popen(
        [sys.executable, "-c", ACTIVATE_SCRIPT], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    try:
        assert app.stdout is not None and app.stdout.readline().split()[:2] == ["backend", "gtk"]
        until(lambda: docked(env, tmp_path / "docked.png"), timeout=20, what="the icon in the tray")
        x, y = icon_centre(screenshot(env, tmp_path / "docked.png"))
        xdotool(env, "mousemove", str(x), str(y), "click", "1")
        said, errors = app.communicate(timeout=40)
        assert said.split() == ["chosen", "window:overview"], errors
    finally:
        if app.poll() is None:
            app.kill()
        host.terminate()
        host.wait()
