"""The acp-tray window for tests: `acp-tray ui --no-browser` against a running daemon, the address
it prints, one-shot addresses made as `acp-tray ui` makes them (`Window.url`, a new key each time),
and plain HTTP requests to it (with or without a session's cookie and token, from any Host or
Origin); the daemons the window's tests run (the demo agent with a tray and dunst, or headless, or on a
preferences file of the test's)."""

from __future__ import annotations

import contextlib
import difflib
import functools
import html
import http.client
import json
import os
import re
import signal
import subprocess
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

from acp_tray.control.endpoint import runtime_dir
from acp_tray.files import paths
from acp_tray.prefs.template import DEFAULT_FILE
from acp_tray.window.where import Running
from tests.support.daemons import DaemonProcess, alive, cli, cli_env


@dataclass
class Answer:
    status: int
    headers: http.client.HTTPMessage
    body: str


@dataclass(frozen=True)
class Session:
    cookie: str  # the Cookie header's value
    token: str  # the header token its pages carry


@dataclass(frozen=True)
class Window:
    printed: str  # what `acp-tray ui --no-browser` printed (an address that opens it once)
    port: int
    pid: int
    secret: str  # from the record
    page: str = "overview"  # the page it was opened on

    @property
    def url(self) -> str:
        """A new one-shot address that opens the window on its page (as `acp-tray ui` makes one)."""
        return Running(self.pid, self.port, self.secret).url(self.page)

    @functools.cached_property
    def session(self) -> Session:
        """A session of this window's, as a browser gets one: the cookie from a one-shot address,
        the token from the page."""
        opened = self.request("GET", "/open?" + urlsplit(self.url).query, cookie=False)
        assert opened.status == 303, opened.body
        cookie = opened.headers["Set-Cookie"].split(";", 1)[0]
        page = self.request("GET", "/overview", headers={"Cookie": cookie}, cookie=False)
        found = re.search(r"hx-headers='([^']*)'", page.body)
        assert found, page.body
        return Session(cookie, json.loads(html.unescape(found.group(1)))["X-Acp-Tray-Token"])

    def request(
        self, method: str, path: str, *, cookie: bool = True, headers: dict[str, str] | None = None, body: bytes = b""
    ) -> Answer:
        """A request from the window's page (`cookie=False`: from a client without a session)."""
        sent = {"Host": f"127.0.0.1:{self.port}", **(headers or {})}
        if cookie:
            sent.setdefault("Cookie", self.session.cookie)
            if method == "POST":
                sent.setdefault("X-Acp-Tray-Token", self.session.token)
        if method == "POST":
            sent.setdefault("Origin", f"http://127.0.0.1:{self.port}")
            sent.setdefault("Content-Type", "application/x-www-form-urlencoded")
        connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=10)
        try:
            connection.request(method, path, body=body, headers=sent)
            response = connection.getresponse()
            return Answer(response.status, response.headers, response.read().decode("utf-8", "replace"))
        finally:
            connection.close()


def open_window(page: str = "overview", env: dict[str, str] | None = None) -> Window:
    shown = cli("ui", "--no-browser", "--page", page, env=env)
    assert shown.returncode == 0, shown.stderr
    url = shown.stdout.strip().splitlines()[-1]
    assert parse_qs(urlsplit(url).query)["key"]
    record = json.loads((runtime_dir() / "window.json").read_text(encoding="utf-8"))
    return Window(url, int(urlsplit(url).port or 0), int(record["pid"]), str(record["secret"]), page)


def redirected(opened: str) -> str:
    """The address a redirect file (`acp-tray ui`'s, given as the file: URI a browser was asked to
    open) sends the browser on to."""
    text = Path(urlsplit(opened).path).read_text(encoding="utf-8")
    found = re.search(r'http-equiv="refresh" content="0;url=([^"]*)"', text)
    assert found, text
    return html.unescape(found.group(1))


@contextlib.contextmanager
def window_process(page: str = "overview") -> Iterator[Window]:
    """The window's server for one test, ended with the test whatever happens."""
    window = open_window(page)
    try:
        yield window
    finally:
        end(window.pid)


def end(pid: int, timeout: float = 10.0) -> None:
    if alive(pid):
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGTERM)
    deadline = time.monotonic() + timeout
    while alive(pid) and time.monotonic() < deadline:
        time.sleep(0.05)
    if alive(pid):
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)


DEMO = '[agents.demo]\ncommand = ["acp-tray", "demo-agent"]\npermission_timeout = 300\n'


def displayed(desktop: Any) -> int:
    count = subprocess.run(["dunstctl", "count", "displayed"], env={**cli_env(), **desktop.env}, capture_output=True)
    return int(count.stdout)


def demo_daemon(tmp_path: Path, daemons: list[DaemonProcess], desktop: Any) -> dict[str, str]:
    config = paths.config_file()
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text('notifier = "freedesktop"\n' + DEMO, encoding="utf-8")
    env = cli_env(**desktop.env, ACP_TRAY_DEMO_INTERVAL="0.05", PYSTRAY_BACKEND="xorg")
    daemon = DaemonProcess("run", env=env)  # with a tray: notifications go to dunst
    daemons.append(daemon)
    assert "freedesktop (dunst" in daemon.wait_for_line("notifications:")
    daemon.wait_for_lines("demo  connected")
    return env


def headless_daemon(daemons: list[DaemonProcess], *tables: str) -> None:
    config = paths.config_file()
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text('notifier = "console"\n' + "".join(tables), encoding="utf-8")
    daemon = DaemonProcess("run", "--headless", env=cli_env())
    daemons.append(daemon)
    daemon.wait_for_line("control: ")


def prefs_daemon(daemons: list[DaemonProcess], text: str, *, link: bool = False) -> Path:
    """A headless daemon (console notifier) running the demo agent on a preferences file that says
    `text` (`link`: the file is a link into a dotfiles repository); the file's path."""
    config = paths.config_file()
    config.parent.mkdir(parents=True, exist_ok=True)
    if link:
        target = config.parent / "dotfiles" / "acp-tray.toml"
        target.parent.mkdir()
        target.write_text(text, encoding="utf-8")
        config.symlink_to(target)
    else:
        config.write_text(text, encoding="utf-8")
    daemon = DaemonProcess("run", "--headless", env=cli_env(ACP_TRAY_DEMO_INTERVAL="0.05"))
    daemons.append(daemon)
    daemon.wait_for_lines("control: ", "demo  connected")
    return config


CONSOLE = DEFAULT_FILE.replace('notifier = "auto"', 'notifier = "console"')  # the commented default file, headless


def changed_lines(before: str, after: str) -> list[str]:
    """The lines a file's edit removed ("- ") and added ("+ ")."""
    return [line for line in difflib.ndiff(before.splitlines(), after.splitlines()) if line[:2] in ("- ", "+ ")]


def shows_page(page: Any, window: Window, name: str) -> None:
    """The browser is at the window's page `name` (the key out of the address), its link current in the nav."""
    assert page.url == f"http://127.0.0.1:{window.port}/{name.lower()}"
    assert page.get_by_role("link", name=name).get_attribute("aria-current") == "page"


PHONE = {"width": 390, "height": 844}  # a phone's width: the window is usable down to it


def sideways(page: Any) -> list[str]:
    """What makes the page scroll sideways (wider than the browser window): the elements whose content
    is wider than their box, with the start of their text; none when it fits."""
    return list(
        page.evaluate(
            """() => document.documentElement.scrollWidth <= window.innerWidth ? [] :
            [...document.querySelectorAll("body *")]
              .filter(e => e.clientWidth > 0 && e.scrollWidth > e.clientWidth + 1)
              .map(e => `${e.tagName}#${e.id}.${e.className}: ${(e.textContent || "").trim().slice(0, 60)}`)"""
        )
    )
