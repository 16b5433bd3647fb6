"""Hostile text on a real desktop: dunst on a private session bus under Xvfb (the `desktop` fixture),
through our D-Bus backend, through plyer's notify-send path, and through the real daemon with its
tray (AppIndicator, read back over dbusmenu as a StatusNotifierItem host sees it).

What dunst shows is read from `dunstctl history`: `summary` and `body` are what it received, and
`message` is what it renders: tests/desktop/dunstrc formats it as "URG=…|%s|%b" with
`markup = full`, so the body is Pango markup there and the summary is escaped by dunst itself.
"""

from __future__ import annotations

import asyncio
import html
import json
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from acp_tray.notifiers.content import Notification, notification_of
from acp_tray.notifiers.freedesktop import FreedesktopBackend
from acp_tray.notifiers.plyer_backend import argument_safe
from acp_tray.tray.menu import approval_label, option_label
from acp_tray.tray.snapshot import ApprovalRow
from tests.hostile.corpus import CORPUS, HOSTILE_AGENT, MENU_LABEL, SMALL, Hostile, unsafe_characters
from tests.support.daemons import DaemonProcess, cli_env
from tests.support.dbusmenu import dbusmenu_labels, dbusmenu_text
from tests.support.presentations import make_presentation as presentation

MARKUP = tuple(e for e in SMALL if "markup" in e.tags)
FOR_NOTIFY_SEND = tuple(e for e in SMALL if e.tags & {"dash", "markup", "format", "control", "bidi"})


def dunst_escape(text: str) -> str:
    """How dunst escapes the summary for its markup (GLib's g_markup_escape_text)."""
    for raw, escaped in (("&", "&amp;"), ("<", "&lt;"), (">", "&gt;"), ("'", "&apos;"), ('"', "&quot;")):
        text = text.replace(raw, escaped)
    return text


def shown_literally(item: dict[str, Any], summary: str, body: str) -> None:
    """dunst received exactly `summary` and `body`, and renders them as that text, nothing more."""
    assert item["summary"] == summary
    assert item["message"] == f"URG={item['message'].split('|', 1)[0][4:]}|{dunst_escape(summary)}|{body}"


async def test_freedesktop_shows_every_hostile_entry_as_literal_text(desktop: Any, desktop_env: dict[str, str]) -> None:
    mark = desktop.mark()
    backend = FreedesktopBackend(lambda group, what: None)
    await backend.start()
    assert backend.markup  # dunst renders body markup: the backend must escape
    sent: list[tuple[Hostile, Notification]] = []
    try:
        for i, entry in enumerate(CORPUS):  # one at a time: dunst numbers them in this order
            p = presentation(7000 + i, f"#{i} {entry.text}", agent=entry.text, description=entry.text)
            n = notification_of(p)
            await backend.notify(n)
            sent.append((entry, n))
    finally:
        await backend.aclose()
    shown = desktop.since(mark)
    assert len(shown) == len(CORPUS)
    for (entry, n), item in zip(sent, shown, strict=True):
        assert item["body"] == html.escape(n.body, quote=False), entry.name  # escaped on the wire
        shown_literally(item, n.summary, html.escape(n.body, quote=False))
        assert "[image]" not in item["message"], entry.name  # no <img> became an image
        assert not unsafe_characters(item["message"], one_line=False), entry.name


@pytest.mark.filterwarnings("ignore:The Python dbus package")  # expected: plyer's notify-send path
async def test_plyer_notify_send_never_takes_hostile_text_for_options(
    desktop: Any, desktop_env: dict[str, str]
) -> None:
    from acp_tray.notifiers.plyer_backend import PlyerBackend

    mark = desktop.mark()
    backend = PlyerBackend()
    await backend.start()
    sent = []
    for i, entry in enumerate(FOR_NOTIFY_SEND):
        for agent in (entry.text, f"#{i}"):  # a summary and a body that start with the hostile text
            n = notification_of(presentation(1, f"#{i} {entry.text}", agent=agent, description=entry.text))
            await backend.notify(n)
            sent.append((entry, n))
    shown = desktop.since(mark)
    assert len(shown) == len(sent)
    for (entry, n), item in zip(sent, shown, strict=True):
        assert item["summary"] == argument_safe(n.summary), entry.name  # all of it arrived, as the title
        body = argument_safe(html.escape(n.body, quote=False) or " ")  # escaped: the server renders markup
        assert item["body"] in (body, body.strip()), entry.name
        assert item["message"].startswith("URG=normal|"), entry.name  # "-u critical" stayed text
        assert item["appname"] == "acp-tray", entry.name  # "--app-name=evil" stayed text


@pytest.mark.filterwarnings("ignore:The Python dbus package")
async def test_plyer_shows_markup_as_literal_text(desktop: Any, desktop_env: dict[str, str]) -> None:
    from acp_tray.notifiers.plyer_backend import PlyerBackend

    mark = desktop.mark()
    backend = PlyerBackend()
    await backend.start()
    sent = []
    for i, entry in enumerate(MARKUP):
        n = notification_of(presentation(1, f"#{i}", description=entry.text))
        await backend.notify(n)
        sent.append(n)
    shown = desktop.since(mark)
    assert len(shown) == len(sent)
    for n, item in zip(sent, shown, strict=True):
        shown_literally(item, n.summary, html.escape(argument_safe(n.body), quote=False))


# the real daemon, its notifications and its tray menu ----------------------------------------------

APPROVAL_TITLE = "rm -rf ~/\x1b[31mproject\u202e\n<b>now</b> " + "x" * 300
OPTIONS = [
    {"optionId": "allow_a", "name": "<b>Allow</b> \x1b[32m_once_ \u2066", "kind": "allow_once"},
    {"optionId": "no\n", "name": "\u202eReject" + " no" * 40, "kind": "reject_once"},
    {"optionId": "weird", "name": "", "kind": "\x1b[5m"},
]


def test_daemon_notifications_and_tray_menu_with_a_hostile_agent(tmp_path: Path, desktop: Any) -> None:
    updates = [
        {"sessionUpdate": "notice", "severity": e.text, "title": f"#{i} {e.text}", "description": e.text}
        for i, e in enumerate(SMALL)
    ]
    script = {
        "session_id": "sess-\x1b[31m\u202e",
        "updates": updates,
        "permissions": [{"toolCall": {"toolCallId": "t", "title": APPROVAL_TITLE}, "options": OPTIONS}],
    }
    script_file = tmp_path / "script.json"
    script_file.write_text(json.dumps(script), encoding="utf-8")
    config = tmp_path / "config.toml"
    config.write_text(
        "[rate_limit]\nburst = 1000\n\n[agents.evil]\nprotocol = 1\n"
        f"command = {json.dumps([sys.executable, str(HOSTILE_AGENT)])}\n"
        f"env = {{ HOSTILE_AGENT_SCRIPT = {json.dumps(str(script_file))} }}\n",
        encoding="utf-8",
    )
    env = cli_env(**desktop.env, NO_AT_BRIDGE="1")
    host = subprocess.Popen(
        ["gtk-sni-tray-standalone", "--watcher", "--top", "--end", "--size", "32"],
        env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    mark = desktop.mark()
    daemon = DaemonProcess("run", "--config", str(config), env=env)
    try:
        assert "appindicator" in daemon.wait_for_line("tray:")
        expected = {
            notification_of(presentation(1, f"#{i} {e.text}", e.text, agent="evil", description=e.text)).summary: e
            for i, e in enumerate(SMALL)
        }
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            shown = {item["summary"]: item for item in desktop.since(mark)}
            if set(expected) <= set(shown) and "evil: Needs approval" in shown:
                break
            time.sleep(0.3)
        assert set(expected) <= set(shown), sorted(set(expected) - set(shown))[:3]
        labels = [
            dbusmenu_text(label) for label in asyncio.run(dbusmenu_labels(desktop.env["DBUS_SESSION_BUS_ADDRESS"]))
        ]
        assert daemon.stop() == 0
    finally:
        if daemon.proc.poll() is None:
            daemon.proc.kill()
        host.terminate()
        host.wait(5)
    stderr = daemon.stderr_text()
    assert "Traceback" not in stderr, stderr
    for summary, entry in expected.items():
        item = shown[summary]
        body = notification_of(presentation(1, "t", description=entry.text)).body
        shown_literally(item, summary, html.escape(body, quote=False))
    approval = shown["evil: Needs approval"]
    assert not unsafe_characters(approval["message"], one_line=False)
    assert "&lt;b&gt;now&lt;/b&gt;" in approval["message"]  # the title's markup stays text
    # the tray menu, as the StatusNotifierItem host renders it
    from acp_tray.protocol.session import parse_permission_request

    request = parse_permission_request({"sessionId": "s", "toolCall": {"title": APPROVAL_TITLE}, "options": OPTIONS})
    row = ApprovalRow("1", "evil", request.title, request.options)
    assert "Needs you (1)" in labels
    assert approval_label(row) in labels
    for option in request.options:
        assert option_label(option.name, option.kind) in labels
    for label in labels:
        assert not unsafe_characters(label), label
        assert len(label) <= MENU_LABEL
