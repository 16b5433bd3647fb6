"""The window's server is a new door: loopback only, a one-shot key exchanged for a session (a strict cookie),
the Host checked (DNS rebinding), a change only by a POST from its own page (CSRF), strict
security headers, bounded bodies, and a file saying where it is that only its user can read.
Each protection is checked against the real `acp-tray ui` server of a real daemon."""

from __future__ import annotations

import json
import stat
import time
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

from acp_tray.control.endpoint import runtime_dir
from acp_tray.window.keys import OPEN_FOR, opening_key
from tests.support.agents import session_agent_table
from tests.support.config import write_config
from tests.support.daemons import DaemonProcess, alive, cli, cli_env, start
from tests.support.waiting import until
from tests.support.window import end, open_window, window_process


def test_a_one_shot_key_is_exchanged_for_a_session_and_nothing_is_served_without_it(
    daemons: list[DaemonProcess], tmp_path: Path
) -> None:
    write_config(session_agent_table("sa", tmp_path / "sa.log"))
    start(daemons, "sa")
    with window_process() as window:
        assert window.printed.startswith(f"http://127.0.0.1:{window.port}/open?key=")
        key = parse_qs(urlsplit(window.printed).query)["key"][0]
        assert key not in (runtime_dir() / "window.json").read_text(encoding="utf-8")

        opened = window.request("GET", f"/open?key={key}&page=history", cookie=False)
        assert opened.status == 303
        assert opened.headers["Location"] == "/history"  # the key leaves the address bar
        cookie = opened.headers["Set-Cookie"]
        assert cookie.startswith(f"acp_tray_window_{window.port}=")
        assert "HttpOnly" in cookie and "SameSite=Strict" in cookie and "Path=/" in cookie
        assert key not in cookie  # the session is a value of its own, never the key

        session = {"Cookie": cookie.split(";", 1)[0]}
        page = window.request("GET", "/overview", headers=session, cookie=False)
        assert page.status == 200 and 'data-agent="sa"' in page.body

        for path in ("/overview", "/history", "/agents", "/events?page=overview", "/static/app.css"):
            refused = window.request("GET", path, cookie=False)
            assert refused.status == 403, path
            assert "data-agent" not in refused.body and "acp-tray ui" in refused.body

        again = window.request("GET", f"/open?key={key}&page=history", cookie=False)
        assert again.status == 403 and "Set-Cookie" not in again.headers
        assert "used already or has expired: run `acp-tray ui` again" in again.body
        wrong = window.request("GET", "/open?key=" + "x" * len(key), cookie=False)
        assert wrong.status == 403 and "Set-Cookie" not in wrong.headers
        forged = window.request(
            "GET", "/overview", headers={"Cookie": f"acp_tray_window_{window.port}=guess"}, cookie=False
        )
        assert forged.status == 403


def test_a_foreign_host_a_cross_origin_post_and_a_large_body_are_refused(
    daemons: list[DaemonProcess], tmp_path: Path
) -> None:
    write_config(session_agent_table("sa", tmp_path / "sa.log"))
    start(daemons, "sa")
    with window_process() as window:
        # DNS rebinding: a page from evil.example resolving to 127.0.0.1 sends its own Host
        rebound = window.request("GET", "/overview", headers={"Host": f"evil.example:{window.port}"})
        assert rebound.status == 403 and "sa" not in rebound.body
        assert window.request("GET", "/overview", headers={"Host": f"localhost:{window.port}"}).status == 200

        stop = "/agents/sa/stop"
        for headers in (
            {"Origin": "http://evil.example"},
            {"Origin": "null"},
            {"Origin": f"http://127.0.0.1:{window.port}", "Sec-Fetch-Site": "cross-site"},
        ):
            refused = window.request("POST", stop, headers=headers)
            assert refused.status == 403, headers
        no_origin = window.request("POST", stop, headers={"Origin": ""})
        assert no_origin.status == 403
        assert json.loads(cli("agents", "list", "--json").stdout)[0]["state"] == "connected"  # nothing was stopped

        big = window.request("POST", "/dnd", body=b"mode=on&value=" + b"x" * 70_000)
        assert big.status == 413
        assert window.request("PUT", "/dnd").status == 405

        page = window.request("GET", "/overview")
        csp = page.headers["Content-Security-Policy"]
        assert "default-src 'self'" in csp and "frame-ancestors 'none'" in csp and "unsafe-inline" not in csp
        assert page.headers["X-Content-Type-Options"] == "nosniff"
        assert page.headers["Referrer-Policy"] == "no-referrer"
        assert "Access-Control-Allow-Origin" not in page.headers
        assert page.headers["Cache-Control"] == "no-store"  # a page holds the person's data: never kept
        style = window.request("GET", "/static/app.css")
        assert style.status == 200 and style.headers["Cache-Control"] == "private, max-age=3600"
        assert "default-src 'self'" in style.headers["Content-Security-Policy"]


def test_a_post_from_its_own_page_does_what_it_says(daemons: list[DaemonProcess], tmp_path: Path) -> None:
    write_config(session_agent_table("sa", tmp_path / "sa.log"))
    start(daemons, "sa")
    with window_process() as window:
        stopped = window.request("POST", "/agents/sa/stop")
        assert stopped.status == 200 and "sa: stopped" in stopped.body
        until(lambda: json.loads(cli("agents", "list", "--json").stdout)[0]["state"] == "stopped", what="stopped")
        window.request("POST", "/agents/sa/start")
        until(lambda: json.loads(cli("agents", "list", "--json").stdout)[0]["state"] == "connected", what="started")


def test_where_the_window_is_is_private_and_a_second_ui_reuses_it(daemons: list[DaemonProcess], tmp_path: Path) -> None:
    write_config(session_agent_table("sa", tmp_path / "sa.log"))
    start(daemons, "sa")
    with window_process() as window:
        record = runtime_dir() / "window.json"
        assert stat.S_IMODE(record.stat().st_mode) == 0o600
        assert stat.S_IMODE(runtime_dir().stat().st_mode) == 0o700
        again = open_window()
        assert (again.port, again.pid) == (window.port, window.pid)  # reused, not a second server


def test_with_no_daemon_ui_says_so_in_one_line() -> None:
    shown = cli("ui", "--no-browser")
    assert shown.returncode == 3
    assert len(shown.stderr.strip().splitlines()) == 1 and "not running" in shown.stderr
    assert not (runtime_dir() / "window.json").exists()


def test_the_window_ends_when_the_daemon_stops_and_when_no_page_is_open(
    daemons: list[DaemonProcess], tmp_path: Path
) -> None:
    write_config(session_agent_table("sa", tmp_path / "sa.log"))
    daemon = start(daemons, "sa")
    window = open_window()
    try:
        assert alive(window.pid)
        daemon.stop()
        until(lambda: not alive(window.pid), timeout=15, what="the window's end with the daemon")
        assert not (runtime_dir() / "window.json").exists()
    finally:
        end(window.pid)

    start(daemons, "sa")
    idle = open_window(env=cli_env(ACP_TRAY_WINDOW_IDLE="1"))
    try:
        until(lambda: not alive(idle.pid), timeout=15, what="the window's end when no page is open")
    finally:
        end(idle.pid)


def test_a_key_older_than_a_minute_opens_nothing(daemons: list[DaemonProcess], tmp_path: Path) -> None:
    write_config(session_agent_table("sa", tmp_path / "sa.log"))
    start(daemons, "sa")
    with window_process() as window:
        old = opening_key(window.secret, window.port, now=time.time() - OPEN_FOR - 1)
        expired = window.request("GET", f"/open?key={old}", cookie=False)
        assert expired.status == 403 and "Set-Cookie" not in expired.headers
        assert "used already or has expired" in expired.body
