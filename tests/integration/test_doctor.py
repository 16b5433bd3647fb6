"""`acp-tray doctor` against the real desktop session the tests start (Xvfb, a private bus, dunst),
with and without a notification server and a tray host; and the tray's "Diagnostics…", which opens
the window's diagnostics page."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

import pytest

from acp_tray.files import paths
from tests.support.browser import PageFor
from tests.support.daemons import DaemonProcess, cli_env
from tests.support.trays import icon_centre, screenshot, start_host, trayer, xdotool
from tests.support.waiting import until
from tests.support.window import redirected


def doctor(env: dict[str, str], *args: str) -> tuple[int, dict[str, dict[str, str]]]:
    result = subprocess.run(
        [sys.executable, "-m", "acp_tray", "doctor", "--json", *args],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.stderr == "" and result.returncode in (0, 1), result.stderr
    checks = json.loads(result.stdout)
    return result.returncode, {check["name"]: check for check in checks}


@pytest.fixture
def session(desktop: Any) -> dict[str, str]:
    desktop.close_all()
    return cli_env(**desktop.env, NO_AT_BRIDGE="1")


@pytest.fixture
def host(session: dict[str, str], request: pytest.FixtureRequest) -> Iterator[str]:
    name = request.param
    process = start_host(name, session)
    yield name
    process.terminate()
    process.wait(5)


@pytest.mark.parametrize("host", ["sni", "trayer"], indirect=True)
def test_a_working_desktop_is_all_ticks(session: dict[str, str], host: str) -> None:
    code, checks = doctor(session)
    assert code == 0, checks
    server = checks["notification server"]
    assert server["status"] == "ok" and server["detail"].startswith("dunst 1.9")
    assert "actions yes" in server["detail"] and "markup yes" in server["detail"]
    if host == "sni":
        assert checks["StatusNotifierItem tray host"]["status"] == "ok"
    else:
        assert checks["XEmbed tray host"]["status"] == "ok"
        assert checks["StatusNotifierItem tray host"]["status"] == "note"
    assert "tray host" not in checks  # the summary line appears only when there is none
    assert checks["tray backend"] == {
        "name": "tray backend",
        "status": "ok",
        "detail": "pystray appindicator backend",
        "fix": "",
    }
    assert checks["Gtk 3.0"]["status"] == checks["AyatanaAppIndicator3 0.1"]["status"] == "ok"
    assert checks["preferences file"]["status"] == "note"  # not written yet: doctor never writes it
    assert checks["control socket"]["detail"].startswith("acp-tray is not running")


def test_no_notification_server_and_no_tray_host_are_problems_with_fixes(desktop: Any, session: dict[str, str]) -> None:
    desktop.kill_dunst()
    try:
        code, checks = doctor(session)
    finally:
        desktop.start_dunst()
    assert code == 1
    server = checks["notification server"]
    assert server["status"] == "problem" and "none on the session bus" in server["detail"]
    assert "dunst" in server["fix"]
    assert checks["tray host"]["status"] == "problem" and "nowhere to show" in checks["tray host"]["detail"]
    assert checks["XEmbed tray host"]["detail"].startswith("no system tray on :")
    human = subprocess.run(
        [sys.executable, "-m", "acp_tray", "doctor"], env=session, capture_output=True, text=True, timeout=60
    )
    assert human.returncode == 1 and "✖ tray host: none: the icon has nowhere to show — use a panel" in human.stdout


def test_no_session_bus_at_all(session: dict[str, str]) -> None:
    bare = {k: v for k, v in session.items() if k not in ("DBUS_SESSION_BUS_ADDRESS", "DISPLAY")}
    code, checks = doctor(bare)
    assert code == 1
    assert checks["session bus"]["status"] == "problem" and "desktop session" in checks["session bus"]["fix"]
    assert checks["tray backend"]["detail"] == "none (no display)"


def test_preferences_and_agents_are_checked(tmp_path: Path, session: dict[str, str]) -> None:
    config = paths.config_file()
    config.parent.mkdir(parents=True, exist_ok=True)
    real = tmp_path / "real.toml"
    real.write_text(
        f'[agents.here]\ncommand = ["{sys.executable}"]\n[agents.gone]\ncommand = ["no-such-agent-xyz"]\n'
        '[agents.far]\nurl = "wss://example.invalid/acp?token=secret"\n',
        encoding="utf-8",
    )
    config.symlink_to(real)
    code, checks = doctor(session)
    assert code == 1
    assert checks["preferences file"]["status"] == "ok"
    assert checks["agent here"] == {"name": "agent here", "status": "ok", "detail": sys.executable, "fix": ""}
    gone = checks["agent gone"]
    assert gone["status"] == "problem" and gone["detail"] == "program 'no-such-agent-xyz' not found on PATH"
    assert checks["agent far"]["status"] == "note" and "secret" not in checks["agent far"]["detail"]
    text = subprocess.run(
        [sys.executable, "-m", "acp_tray", "doctor"], env=session, capture_output=True, text=True, timeout=60
    ).stdout
    assert f"· preferences file: {config} is a symlink to {real}" in text
    real.write_text('[severity.info]\nrout = "tray"\n', encoding="utf-8")
    _, checks = doctor(session)
    broken = checks["preferences file"]
    assert (
        broken["status"] == "problem"
        and broken["detail"] == f"{config}:2: unknown key `rout` in [severity.info]; did you mean `route`?"
    )


def test_diagnostics_from_the_tray_menu_opens_the_windows_page(
    tmp_path: Path, desktop: Any, session: dict[str, str], daemons: list[DaemonProcess], page_for: PageFor
) -> None:
    opened = Path(session["ACP_TRAY_TEST_OPENED"])  # what the daemon asked the browser to open
    with trayer(session):
        config = tmp_path / "config.toml"
        config.write_text('[agents.gone]\ncommand = ["no-such-agent-xyz"]\n', encoding="utf-8")
        daemon = DaemonProcess("run", "--config", str(config), env=session)
        daemons.append(daemon)
        assert "appindicator backend" in daemon.wait_for_line("tray:")
        centre = until(lambda: _docked_centre(session, tmp_path / "shot.png"), what="the icon in the tray")
        for _attempt in range(3):  # a loaded machine may open the menu late: try again, never loosen
            xdotool(session, "key", "Escape")
            xdotool(session, "mousemove", str(centre[0]), str(centre[1]), "click", "1")
            time.sleep(0.7)
            for key in ("End", "Up", "Return"):  # the entry above Quit
                xdotool(session, "key", key)
            try:
                url = redirected(
                    until(lambda: _opened(opened), timeout=15, what="the browser asked to open the window")
                )
                break
            except AssertionError:
                continue
        else:
            raise AssertionError("the Diagnostics… entry never answered")
        assert parse_qs(urlsplit(url).query)["page"] == ["diagnostics"]
        watched = page_for()
        page = watched.page
        page.goto(url)
        assert urlsplit(page.url).path == "/diagnostics"
        first = page.locator("li.check").first
        assert first.get_attribute("data-check") == "agent gone" and first.get_attribute("data-status") == "problem"
        assert "program 'no-such-agent-xyz' not found on PATH" in first.inner_text()
        assert page.locator("p.verdict").inner_text().startswith("1 problem to fix")
        server = page.locator('li.check[data-check="notification server"]')
        assert server.get_attribute("data-status") == "ok" and "dunst" in server.inner_text()
        backend = page.locator('li.check[data-check="tray backend"]')  # the running tray's: only the daemon knows
        assert "pystray appindicator backend" in backend.inner_text()
        assert not watched.problems, watched.problems
        running = doctor(session)[1]["control socket"]
        assert running["status"] == "ok" and running["detail"].endswith("yours; acp-tray is running")
        assert daemon.stop() == 0


def _opened(record: Path) -> str | None:
    try:
        lines = record.read_text(encoding="utf-8").splitlines()
    except FileNotFoundError:
        return None
    return lines[-1] if lines else None


def _docked_centre(env: dict[str, str], shot: Path) -> tuple[int, int] | None:
    try:
        return icon_centre(screenshot(env, shot))
    except AssertionError:
        return None
