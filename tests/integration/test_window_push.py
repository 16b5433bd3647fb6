"""The Preferences page's Push section in a real browser (chromium through Playwright) against a
real daemon, the OS keyring (GNOME Keyring's Secret Service) and real Apprise posting to a local
HTTP server standing in for the service: a target added from the page (its URL typed in a password
field) gets the test it is sent and the page says the service accepted it; it is removed after
asking; the URL's token is nowhere but the keyring (not the page, its address or history, the
window's or the daemon's log at -vvv, the files); `[push]` saved from the page changes the file."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
import tomllib
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

import pytest
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from acp_tray.files import paths
from tests.desktop.keyring import keyring_held
from tests.support.axe import serious_violations
from tests.support.browser import PageFor, Screenshot, WatchedPage
from tests.support.daemons import DaemonProcess, cli_env
from tests.support.web_server import serve
from tests.support.window import PHONE, sideways, window_process

SHOWS = 10_000  # ms
WAITING = "Waiting for your keyring: a dialog may have opened"
PAST_TIMEOUT = 32.0  # s: longer than a control request's own time limit (30 s)
PUSHED = 30_000  # ms: Apprise's post to the local service, and its answer
TOKEN = "tok9Qm27xPushSecret"  # the part of the URL a service would treat as the password


@dataclass
class Service:
    """A push service on loopback: what Apprise's `json://` posts to it, by path."""

    received: list[tuple[str, dict[str, Any]]] = field(default_factory=list)

    async def hook(self, request: Request) -> Response:
        self.received.append((request.url.path, json.loads(await request.body())))
        return JSONResponse({"ok": True})

    def app(self) -> Starlette:
        return Starlette(routes=[Route("/{path:path}", self.hook, methods=["POST"])])


@pytest.fixture
def service() -> Iterator[tuple[Service, str]]:
    """The service, and its address as an Apprise URL (`json://127.0.0.1:PORT/hook/TOKEN`)."""
    found = Service()
    with serve(found.app()) as url:
        yield found, f"json://{url.removeprefix('http://')}/hook/{TOKEN}"


@contextmanager
def push_section(page_for: PageFor, scheme: Literal["light", "dark"]) -> Iterator[tuple[WatchedPage, Any]]:
    """The Preferences page open in the window (`scheme`: light or dark), and its Push section."""
    with window_process("preferences") as window:
        watched = page_for(scheme)
        watched.page.goto(window.url)
        yield watched, watched.page.locator("section.push")


def keyring_value(entry: str, env: dict[str, str]) -> str:
    code = f"import keyring; print(keyring.get_password('acp-tray', {entry!r}))"
    found = subprocess.run([sys.executable, "-c", code], env={**os.environ, **env}, capture_output=True, text=True)
    return found.stdout.strip()


@pytest.fixture
def daemon(daemons: list[DaemonProcess], keyring_env: dict[str, str], monkeypatch: pytest.MonkeyPatch) -> DaemonProcess:
    """A headless daemon at -vvv (every library's debug lines too), its secrets in the test keyring,
    which the window's server (started from this process's environment) uses too."""
    for key, setting in keyring_env.items():
        monkeypatch.setenv(key, setting)
    config = paths.config_file()
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text('notifier = "console"\n', encoding="utf-8")
    daemon = DaemonProcess("-vvv", "run", "--headless", env=cli_env(**keyring_env))
    daemons.append(daemon)
    daemon.wait_for_line("control: ")
    return daemon


def files_holding(secret: str, *places: Path) -> list[Path]:
    found = []
    for place in places:
        files = [place] if place.is_file() else [p for p in place.rglob("*") if p.is_file()] if place.is_dir() else []
        found += [file for file in files if secret in file.read_text(errors="replace")]
    return found


def test_a_target_added_from_the_page_is_tested_removed_and_its_url_is_never_shown(
    daemon: DaemonProcess,
    keyring_env: dict[str, str],
    service: tuple[Service, str],
    page_for: PageFor,
    screenshot: Screenshot,
    tmp_path: Path,
) -> None:
    received, url = service
    with window_process("preferences") as window:
        watched = page_for("light")
        page = watched.page
        sent: list[tuple[str, str]] = []
        page.on("request", lambda request: sent.append((request.method, request.url)))
        page.goto(window.url)
        section = page.locator("section.push")
        section.get_by_role("heading", name="Push to your phone").wait_for(timeout=SHOWS)
        section.get_by_text("None yet: add one below.").wait_for()
        entries = page.evaluate("history.length")

        # plain-word problems, beside the fields; the URL typed never comes back
        section.get_by_label("Name", exact=True).fill("my phone")
        section.get_by_label("Apprise URL").fill(url)
        section.get_by_role("button", name="Add the target").click()
        section.get_by_text("push target name 'my phone' is not allowed").wait_for(timeout=SHOWS)
        assert section.get_by_label("Name", exact=True).get_attribute("aria-invalid") == "true"
        assert section.get_by_label("Apprise URL").input_value() == ""
        section.get_by_label("Name", exact=True).fill("phone")
        section.get_by_label("Apprise URL").fill(f"no-such-service-{TOKEN}")
        section.get_by_role("button", name="Add the target").click()
        section.get_by_text("that is not an Apprise URL").or_(section.get_by_text("Apprise does not know")).wait_for(
            timeout=SHOWS
        )
        assert section.get_by_label("Apprise URL").get_attribute("aria-invalid") == "true"
        assert section.get_by_label("Name", exact=True).input_value() == "phone"  # kept; the URL is not
        assert TOKEN not in page.content()

        section.get_by_label("Apprise URL").fill(url)
        assert section.get_by_label("Apprise URL").get_attribute("type") == "password"
        section.get_by_role("button", name="Add the target").click()
        section.get_by_text("phone added (JSON webhook)").wait_for(timeout=SHOWS)
        assert keyring_value("push/phone", keyring_env) == url
        assert section.locator('[data-push="phone"]').get_by_text("JSON webhook").is_visible()
        assert section.get_by_label("Apprise URL").input_value() == ""
        assert TOKEN not in page.content()

        section.get_by_role("button", name="Send a test to phone").click()
        section.get_by_text("Sent: the service accepted it.").wait_for(timeout=PUSHED)
        assert [(path, body["title"]) for path, body in received.received] == [(f"/hook/{TOKEN}", "acp-tray: test")]
        screenshot(watched, "preferences-push-light")
        section.screenshot(path=tmp_path / "screenshots" / "push-section-light.png", caret="initial")

        section.get_by_role("button", name="Remove phone…").click()
        confirm = section.get_by_role("group", name="Confirm removing phone")
        confirm.get_by_text("its URL is deleted from the OS keyring").wait_for(timeout=SHOWS)
        confirm.get_by_role("button", name="Remove phone").click()
        section.get_by_text("phone removed; its URL is deleted from the OS keyring.").wait_for(timeout=SHOWS)
        assert section.locator('[data-push="phone"]').count() == 0
        assert keyring_value("push/phone", keyring_env) == "None"
        assert TOKEN not in page.content()
        assert not watched.problems, watched.problems

        # the URL only ever went in a POST's body: never in an address, so never in the history
        adds = [(method, address) for method, address in sent if address.endswith("/push/targets")]
        assert adds and all(method == "POST" for method, _ in adds), adds
        assert not [address for _, address in sent if TOKEN in address]
        assert TOKEN not in page.url and page.evaluate("history.length") == entries  # no entry added

    daemon.stop()
    lines = "\n".join([*daemon.seen, *daemon.err_lines])
    assert "DEBUG" in lines  # -vvv: the debug lines are there, the token is not
    assert TOKEN not in lines
    window_log = paths.log_file().with_name("window.log")
    holding = files_holding(TOKEN, paths.config_file(), paths.state_dir(), paths.log_file().parent, window_log)
    assert holding == []


def test_the_push_choices_saved_from_the_page_change_the_file(
    daemon: DaemonProcess,
    service: tuple[Service, str],
    page_for: PageFor,
    screenshot: Screenshot,
    tmp_path: Path,
) -> None:
    _, url = service
    with window_process("preferences") as window:
        watched = page_for("dark", viewport=PHONE)
        page = watched.page
        page.goto(window.url)
        section = page.locator("section.push")
        section.get_by_label("Name", exact=True).fill("desk-phone")
        section.get_by_label("Apprise URL").fill(url)
        section.get_by_label("Apprise URL").press("Enter")  # adds the target (its own form), saves nothing else
        section.get_by_text("desk-phone added (JSON webhook)").wait_for(timeout=SHOWS)
        assert page.get_by_text("Saved.", exact=True).count() == 0

        when = section.get_by_role("radiogroup", name="When to push")
        assert when.get_by_label("Only while I am away (idle or the screen locked)").is_checked()  # the default
        when.get_by_label("Always").check()
        section.get_by_label("Away after (seconds without input, or as soon as the screen locks)").fill("120")
        section.get_by_label("Warnings").check()
        section.get_by_label("Turns finished or failed").uncheck()
        section.get_by_label("Push to desk-phone").check()
        answers = section.get_by_label("Answer approvals and simple questions from the push (ntfy targets)")
        assert not answers.is_checked()  # off unless turned on
        answers.check()
        section.get_by_text("Anyone who can read the push's topic can press them").wait_for()
        assert section.locator('[data-push="desk-phone"]').get_by_text("one-way: answered at the desk").is_visible()
        section.get_by_label("At most this many pushes to one target…").fill("0")
        page.get_by_role("button", name="Save").click()
        page.locator("#f-push-burst-error", has_text="Must be at least 1, not 0.").wait_for(timeout=SHOWS)
        assert section.get_by_label("Push to desk-phone").is_checked()  # what was sent is still shown
        section.get_by_label("At most this many pushes to one target…").fill("2")
        page.get_by_role("button", name="Save").click()
        page.get_by_text("Saved.", exact=True).wait_for(timeout=SHOWS)

        push = tomllib.loads(paths.config_file().read_text(encoding="utf-8"))["push"]
        assert push["when"] == "always" and push["away_after"] == 120 and push["burst"] == 2
        assert sorted(push["kinds"]) == ["agents", "approvals", "error", "warning"]
        assert push["targets"] == ["desk-phone"]
        assert push["answers"] is True and push.get("answers_always", False) is False
        assert section.get_by_role("radiogroup", name="When to push").get_by_label("Always").is_checked()
        assert sideways(page) == []  # usable at a phone's width
        screenshot(watched, "preferences-push-dark-phone")
        section.screenshot(path=tmp_path / "screenshots" / "push-section-dark.png", caret="initial")

        section.get_by_label("Push to desk-phone").uncheck()  # none ticked: every target
        with page.expect_response(lambda answer: answer.url.endswith("/preferences"), timeout=SHOWS):
            page.get_by_role("button", name="Save").click()
        assert tomllib.loads(paths.config_file().read_text(encoding="utf-8"))["push"].get("targets", []) == []
        assert not watched.problems, watched.problems


def test_an_add_the_keyring_holds_is_said_while_it_waits_and_the_target_shows_once_it_is_kept(
    daemon: DaemonProcess, keyring_env: dict[str, str], service: tuple[Service, str], page_for: PageFor
) -> None:
    """GNOME Keyring held (as while its "choose a password for the new keyring" dialog is open): the
    page says it waits for the keyring, with no error; once the keyring answers, the target is in
    the list without a reload."""
    _, url = service
    with push_section(page_for, "light") as (watched, section):
        section.get_by_text("None yet: add one below.").wait_for(timeout=SHOWS)
        with keyring_held(keyring_env):
            section.get_by_label("Name", exact=True).fill("phone")
            section.get_by_label("Apprise URL").fill(url)
            section.get_by_role("button", name="Add the target").click()
            section.get_by_role("status").filter(has_text=WAITING).wait_for(timeout=SHOWS)
            assert section.locator(".problem, .field-error").count() == 0
            assert section.locator('[data-push="phone"]').count() == 0
            assert not serious_violations(watched.page, "section.push")  # the wait's words, light
        section.get_by_text("phone added (JSON webhook)").wait_for(timeout=SHOWS)
        assert section.locator('[data-push="phone"]').get_by_text("JSON webhook").is_visible()
        assert section.get_by_text(WAITING).count() == 0
        assert section.locator(".problem, .field-error").count() == 0
        assert keyring_value("push/phone", keyring_env) == url
        assert not watched.problems, watched.problems


def test_the_cli_says_it_waits_for_the_keyring_and_waits_past_its_time_limit(
    daemon: DaemonProcess, keyring_env: dict[str, str], service: tuple[Service, str]
) -> None:
    """`acp-tray push add` while the keyring is held longer than a request's time limit: it says it
    waits for the keyring (not "did not answer within 30 s"), and adds the target once it answers."""
    _, url = service
    with keyring_held(keyring_env):
        adding = subprocess.Popen(
            [sys.executable, "-m", "acp_tray", "push", "add", "desk"],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=cli_env(),
        )  # fmt: skip
        assert adding.stdin is not None and adding.stdout is not None and adding.stderr is not None
        adding.stdin.write(url + "\n")
        adding.stdin.close()
        said = adding.stderr.readline()
        assert WAITING in said, said
        time.sleep(PAST_TIMEOUT)  # the person still typing their new keyring's password
        assert adding.poll() is None
    adding.wait(timeout=60)
    out, err = adding.stdout.read(), adding.stderr.read()
    assert adding.returncode == 0, err
    assert "did not answer" not in err
    assert "desk: json target kept in the OS keyring" in out
    assert keyring_value("push/desk", keyring_env) == url


def test_a_removal_the_keyring_holds_is_said_while_it_waits_and_the_target_goes_once_it_is_deleted(
    daemon: DaemonProcess, keyring_env: dict[str, str], service: tuple[Service, str], page_for: PageFor
) -> None:
    """Removing a target while GNOME Keyring is held (its dialog open): the page says it waits for
    the keyring, with no error and the target still listed; once the keyring answers, the target is
    gone from the list and the keyring, without a reload."""
    _, url = service
    added = subprocess.run(
        [sys.executable, "-m", "acp_tray", "push", "add", "desk"],
        input=url + "\n", capture_output=True, text=True, env=cli_env(), timeout=60, check=False,
    )  # fmt: skip
    assert added.returncode == 0, added.stderr
    with push_section(page_for, "dark") as (watched, section):
        section.locator('[data-push="desk"]').wait_for(timeout=SHOWS)
        section.get_by_role("button", name="Remove desk…").click()
        confirm = section.get_by_role("group", name="Confirm removing desk")
        with keyring_held(keyring_env):
            confirm.get_by_role("button", name="Remove desk").click()
            section.get_by_role("status").filter(has_text=WAITING).wait_for(timeout=SHOWS)
            assert section.locator(".problem, .field-error").count() == 0
            assert section.locator('[data-push="desk"]').count() == 1  # not gone before the keyring says so
            assert not serious_violations(watched.page, "section.push")  # the wait's words, dark
        section.get_by_text("desk removed; its URL is deleted from the OS keyring.").wait_for(timeout=SHOWS)
        assert section.locator('[data-push="desk"]').count() == 0
        assert section.get_by_text(WAITING).count() == 0
        assert section.locator(".problem, .field-error").count() == 0
        assert keyring_value("push/desk", keyring_env) == "None"
        assert not watched.problems, watched.problems
