"""Native notifications on a real notification server (dunst on a private session bus, Xvfb)."""

from __future__ import annotations

import asyncio
import io
import json
import subprocess
import sys
import time
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest

from acp_tray.notifiers.chain import NotifierChain
from acp_tray.notifiers.console import ConsoleBackend, ConsoleNotifier
from acp_tray.notifiers.freedesktop import FreedesktopBackend
from tests.support.agents import scripted_command
from tests.support.daemons import DaemonProcess, cli_env
from tests.support.presentations import make_presentation as presentation

NOW = datetime(2026, 11, 29, 12, 0)


def urgency_of(item: dict[str, Any]) -> str:
    return str(item["message"]).split("|", 1)[0].removeprefix("URG=")


async def test_backend_on_dunst_urgency_markup_and_in_place_updates(
    desktop: Any, desktop_env: dict[str, str], bus_link: Any
) -> None:
    mark = desktop.mark()
    actions: list[tuple[int, str]] = []
    backend = FreedesktopBackend(lambda group, what: actions.append((group, what)), link=bus_link)
    description = await backend.start()
    assert description.startswith("dunst ") and backend.markup
    chain = NotifierChain([backend])
    await chain.start()
    hostile = "<b>bold</b> & <a href='https://evil.example'>link</a> <img src='x.png'>"
    chain.present(presentation(101, "Markup stays text", "warning", description=hostile))
    chain.present(presentation(102, "Build failed", "error", timeout=0))
    chain.present(presentation(103, "Extension", "_acme.custom", timeout=10))
    await chain.drain()
    chain.present(presentation(102, "Build failed", "error", timeout=0, count=3))
    await chain.drain()
    await asyncio.sleep(0.2)
    shown = desktop.since(mark)
    await asyncio.sleep(0.3)  # NotificationClosed signals from close-all
    await chain.aclose()
    by_summary = {item["summary"]: item for item in shown}
    assert set(by_summary) == {"bot: Markup stays text", "bot: Build failed ×3", "bot: Extension"}
    assert len(shown) == 3  # the repeat updated its notification in place: no fourth
    assert urgency_of(by_summary["bot: Markup stays text"]) == "normal"
    assert urgency_of(by_summary["bot: Build failed ×3"]) == "critical"
    assert urgency_of(by_summary["bot: Extension"]) == "normal"
    body = by_summary["bot: Markup stays text"]["body"]
    assert (
        body
        == "&lt;b&gt;bold&lt;/b&gt; &amp; &lt;a href='https://evil.example'&gt;link&lt;/a&gt; &lt;img src='x.png'&gt;"
    )
    assert all(item["appname"] == "acp-tray" for item in shown)
    assert await asyncio.to_thread(lambda: all(Path(item["icon_path"]).is_file() for item in shown))
    assert {what for _, what in actions} == {"closed"} and {group for group, _ in actions} == {101, 102, 103}


async def test_each_severity_has_its_own_icon_in_the_trays_badge_colour(
    desktop: Any, desktop_env: dict[str, str], bus_link: Any
) -> None:
    """dunst is sent an icon per severity class, badged in the colour the tray's badge uses."""
    from PIL import Image

    from acp_tray.tray.icon import BADGE_COLOURS, badge_pixel

    mark = desktop.mark()
    backend = FreedesktopBackend(lambda group, what: None, link=bus_link)
    await backend.start()
    chain = NotifierChain([backend])
    await chain.start()
    for group, severity in enumerate(("info", "warning", "error", "_acme.custom"), start=201):
        chain.present(presentation(group, f"Severity {severity}", severity, timeout=0))
    await chain.drain()
    await asyncio.sleep(0.2)
    shown = {item["summary"]: item["icon_path"] for item in desktop.since(mark)}
    await chain.aclose()
    icons = {
        cls: shown[f"bot: Severity {severity}"]
        for cls, severity in (("info", "info"), ("warning", "warning"), ("error", "error"), ("other", "_acme.custom"))
    }
    assert len(set(icons.values())) == 4  # an error does not look like an info
    for cls, path in icons.items():
        image = Image.open(path).convert("RGBA")
        assert image.size == (48, 48)
        pixel = image.getpixel(badge_pixel(48))
        assert isinstance(pixel, tuple)
        assert all(abs(a - b) <= 2 for a, b in zip(pixel, BADGE_COLOURS[cls], strict=True)), (cls, pixel)


async def test_server_killed_falls_back_to_the_console_and_recovers(
    desktop: Any, desktop_env: dict[str, str], bus_link: Any
) -> None:
    stream = io.StringIO()
    backend = FreedesktopBackend(lambda group, what: None, reply_timeout=1.0, link=bus_link)
    chain = NotifierChain([backend, ConsoleBackend(ConsoleNotifier(stream))], retry_after=0.5)
    assert (await chain.start()).startswith("freedesktop")
    desktop.kill_dunst()
    try:
        chain.present(presentation(201, "While the server is down", "error"))
        await chain.drain()
        assert "While the server is down" in stream.getvalue()  # not lost: the next backend showed it
        assert chain.delivered == {"freedesktop": 0, "console": 1}
    finally:
        desktop.start_dunst()
    mark = desktop.mark()
    await asyncio.sleep(0.6)
    chain.present(presentation(202, "Server is back", "info"))
    await chain.drain()
    await chain.aclose()
    assert [item["summary"] for item in desktop.since(mark)] == ["bot: Server is back"]


async def test_a_burst_reaches_dunst_whole_with_bounded_calls(
    desktop: Any, desktop_env: dict[str, str], bus_link: Any
) -> None:
    mark = desktop.mark()
    backend = FreedesktopBackend(lambda group, what: None, link=bus_link)
    chain = NotifierChain([backend])
    await chain.start()
    for group in range(300, 500):
        chain.present(presentation(group, f"burst {group}"))
    await chain.drain()
    await chain.aclose()
    shown = desktop.since(mark)
    assert sorted(item["summary"] for item in shown) == sorted(f"bot: burst {g}" for g in range(300, 500))
    assert desktop.dunst.poll() is None  # the server is still alive


def test_daemon_end_to_end_on_dunst_and_dismissal_sends_nothing(tmp_path: Path, desktop: Any) -> None:
    go_dnd, go_after = tmp_path / "go-dnd", tmp_path / "go-after"
    stdin_copy = tmp_path / "agent-stdin.bin"

    def notice(severity: str, title: str, **fields: Any) -> dict[str, Any]:
        return {"update": {"sessionUpdate": "notice", "severity": severity, "title": title, **fields}}

    steps = [
        notice("warning", "E2E <b>markup</b>", description="<a href='x'>click</a> & <img src=y>"),
        {"repeat": 3, **notice("error", "E2E build failed", description="exit 2")},
        notice("info", "E2E tray only"),
        notice("_acme.custom", "E2E extension"),
        {"wait_file": str(go_dnd)},
        notice("warning", "E2E during DND"),
        {"wait_file": str(go_after)},
        notice("warning", "E2E after DND"),
    ]
    config = tmp_path / "config.toml"
    config.write_text(
        '[severity.info]\nroute = "tray"\n\n[rate_limit]\nburst = 50\n\n[agents.e2e]\nprotocol = 1\n'
        f"command = {json.dumps(scripted_command())}\n"
        f"env = {{ SCRIPTED_AGENT_STEPS = {json.dumps(json.dumps(steps))}, "
        f"SCRIPTED_AGENT_STDIN_COPY = {json.dumps(str(stdin_copy))} }}\n",
        encoding="utf-8",
    )
    mark = desktop.mark()
    env = cli_env(**desktop.env)
    daemon = DaemonProcess("run", "--config", str(config), "-vv", env=env)
    try:
        assert "notifications: freedesktop (dunst 1.9" in daemon.wait_for_line("notifications:")
        _wait_for(desktop, mark, "e2e: E2E extension")
        dnd = subprocess.run(
            [sys.executable, "-m", "acp_tray", "dnd", "on", "--config", str(config)], env=env, capture_output=True
        )
        assert dnd.returncode == 0
        daemon.wait_for_stderr("do not disturb: on")
        go_dnd.touch()
        _wait_for_history_title("E2E during DND")
        subprocess.run([sys.executable, "-m", "acp_tray", "dnd", "off", "--config", str(config)], env=env, check=True)
        daemon.wait_for_stderr("do not disturb: off")
        go_after.touch()
        daemon.wait_for_stderr("freedesktop showed 'e2e: E2E after DND'")
        # dismissal: close what is on screen, and check that no byte reaches the agent
        before = stdin_copy.read_bytes()
        closed_before = sum("closed" in line for line in daemon.err_lines)
        desktop.close_all()
        daemon.wait_for_stderr("closed", occurrences=closed_before + 1)
        time.sleep(0.5)
        assert stdin_copy.read_bytes() == before
        assert daemon.stop() == 0
    finally:
        if daemon.proc.poll() is None:
            daemon.proc.kill()
    shown = desktop.since(mark)
    summaries = [item["summary"] for item in shown]
    assert summaries.count("e2e: E2E build failed ×3") == 1 and not any(s == "e2e: E2E build failed" for s in summaries)
    assert "e2e: E2E tray only" not in summaries  # route = "tray": no notification
    assert "e2e: E2E during DND" not in summaries  # DND: no notification
    assert summaries.count("e2e: E2E <b>markup</b>") == 1  # the summary is plain text, shown as is
    body = next(item["body"] for item in shown if item["summary"] == "e2e: E2E <b>markup</b>")
    assert body == "&lt;a href='x'&gt;click&lt;/a&gt; &amp; &lt;img src=y&gt;"
    urgencies = {item["summary"]: urgency_of(item) for item in shown}
    assert urgencies["e2e: E2E build failed ×3"] == "critical" and urgencies["e2e: E2E extension"] == "normal"
    # what the agent ever received: initialize and session/new, nothing else (offered 1 directly:
    # with "auto" a v1 agent would also get the v2 offer first, on a connection that is thrown away)
    methods = [json.loads(line)["method"] for line in stdin_copy.read_bytes().splitlines()]
    assert methods == ["initialize", "session/new"]


def _wait_for(desktop: Any, mark: int, summary: str, timeout: float = 30.0) -> list[dict[str, Any]]:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        shown: list[dict[str, Any]] = desktop.since(mark)
        if any(item["summary"] == summary for item in shown):
            return shown
        time.sleep(0.2)
    raise AssertionError(f"dunst never showed {summary!r}")


def _wait_for_history_title(title: str, timeout: float = 30.0) -> None:
    from acp_tray.files import paths
    from acp_tray.state.history import read_history

    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if any(isinstance(r, dict) and r.get("title") == title for r in read_history(paths.history_file())):
            return
        time.sleep(0.1)
    raise AssertionError(f"{title!r} never reached the history")


@pytest.mark.filterwarnings("ignore:The Python dbus package")  # expected: plyer's notify-send path
async def test_plyer_linux_path_never_turns_text_into_notify_send_options(
    desktop: Any, desktop_env: dict[str, str]
) -> None:
    from acp_tray.notifiers.content import Notification, Urgency
    from acp_tray.notifiers.plyer_backend import PlyerBackend

    mark = desktop.mark()
    backend = PlyerBackend()
    assert (await backend.start()).startswith("plyer")
    hostile = Notification(1, "--help", "-u critical", Urgency.NORMAL, 5, presentation(1, "x"))
    await backend.notify(hostile)
    shown = desktop.since(mark)
    assert [(item["summary"], item["body"]) for item in shown] == [("\u200b--help", "\u200b-u critical")]
    assert urgency_of(shown[0]) == "normal"  # "-u critical" did not become an option
