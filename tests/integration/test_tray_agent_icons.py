"""A registry agent's SVG icon beside it in the tray's Agents menu: the real pystray GTK menu under
Xvfb in a tray host, the icon drawn by librsvg (through GdkPixbuf) in the menu's text colour."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from tests.integration.test_tray import tray_host  # noqa: F401 - the fixture
from tests.registry_server import ICON

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

def later():
    time.sleep(1.0)
    app.show(TraySnapshot(agents=(AgentRow("codex-acp", AgentState.CONNECTED, icon=sys.argv[1]),
                                  AgentRow("plain", AgentState.STOPPED),
                                  AgentRow("broken", AgentState.STOPPED, icon=sys.argv[2]))))
    time.sleep(1.0)
    from gi.repository import GLib
    GLib.idle_add(inspect)

app.run(setup=lambda: threading.Thread(target=later, daemon=True).start(), on_signal=app.stop)
"""


def test_a_registry_agent_shows_its_icon_in_the_agents_menu(tray_host: dict[str, str], tmp_path: Path) -> None:  # noqa: F811
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
