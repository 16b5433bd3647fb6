"""A download that fails is said in plain words and leaves nothing behind: an agent's binary that
cannot be had (a host name that does not resolve, a TLS failure, not found, a server that hangs up,
more than the limit) is not added and leaves no directory; the registry itself out of reach is said
with its cached copy's age, or that no copy is cached. Against a real daemon and a real local
server; the window's agents page (real chromium) says the same words."""

from __future__ import annotations

import json
from typing import Any

import pytest

from acp_tray.files import paths
from tests.support.browser import PageFor
from tests.support.config import write_config
from tests.support.daemons import DaemonProcess, cli, start
from tests.support.registry_server import RegistryServer, demo_binary, entry
from tests.support.window import window_process

pytestmark = pytest.mark.usefixtures("whole_groups")

ARCHIVE = "/dl/demo-1.0.0.tar.gz"
NOWHERE = "https://no-such-host.invalid"
UNKNOWN_NAME = "cannot reach no-such-host.invalid: its name is not known here (no network, or a wrong address)"
LIVE = 10_000  # ms


def _archive_at(document: dict[str, Any], url: str) -> dict[str, Any]:
    for target in document["distribution"]["binary"].values():
        target["archive"] = url
    return document


@pytest.mark.parametrize(
    ("how", "said"),
    [
        ("no such host", "cannot reach no-such-host.invalid: its name is not known here (no network"),
        ("not TLS", "cannot reach 127.0.0.1 safely: the secure connection (TLS) failed"),
        ("not found", "not found: the server answered 404"),
        ("hang-up", "127.0.0.1 closed the connection before the answer was complete"),
        ("too large", "2147483648 bytes is over the limit of 1073741824 bytes; not downloaded"),
    ],
)
def test_a_binary_that_cannot_be_downloaded_is_said_plainly_and_nothing_is_left(
    server: RegistryServer, daemons: list[DaemonProcess], how: str, said: str
) -> None:
    document = demo_binary(server, "1.0.0")
    if how == "no such host":
        document = _archive_at(document, NOWHERE + ARCHIVE)
    elif how == "not TLS":  # HTTPS to a server that speaks plain HTTP
        document = _archive_at(document, server.url(ARCHIVE).replace("http://", "https://"))
    elif how == "not found":
        del server.files[ARCHIVE]
    elif how == "hang-up":
        server.hangups.add(ARCHIVE)
    else:
        server.lengths[ARCHIVE] = 2 * 1024**3
    write_config(registry=server.publish(document))
    start(daemons, own_group=True)
    result = cli("agents", "add", "demo-acp")
    assert result.returncode == 1, result
    assert said in result.stderr and "demo-acp 1.0.0: " in result.stderr, result.stderr
    assert "Errno" not in result.stderr and "Traceback" not in result.stderr
    assert not (paths.registry_agents_dir() / "demo-acp").exists()  # no empty directory behind
    listed = json.loads(cli("agents", "list", "--json").stdout)
    assert [row["name"] for row in listed] == []  # not added


def test_the_registry_out_of_reach_is_said_plainly_with_or_without_a_cached_copy(server: RegistryServer) -> None:
    write_config(registry=f"{NOWHERE}/registry.json")
    nothing = cli("agents", "search")
    assert nothing.returncode == 1
    assert nothing.stderr == (
        f"acp-tray: cannot read the registry: {NOWHERE}/registry.json: cannot reach no-such-host.invalid: "
        "its name is not known here (no network, or a wrong address) (and no copy is cached)\n"
    )
    write_config(registry=server.publish(entry("gemini", "0.61.0", {"npx": {"package": "@google/gemini-cli"}})))
    assert cli("agents", "search").returncode == 0  # fetched, and cached
    server.close()
    offline = cli("agents", "search", "gemini")
    assert offline.returncode == 0 and "gemini" in offline.stdout
    assert "offline, using the registry as fetched" in offline.stderr and " s ago" in offline.stderr
    assert "cannot reach 127.0.0.1: it refused the connection" in offline.stderr, offline.stderr
    assert "Errno" not in offline.stderr


def test_the_agents_page_says_the_same_plain_words(
    server: RegistryServer, daemons: list[DaemonProcess], page_for: PageFor
) -> None:
    write_config(registry=server.publish(_archive_at(demo_binary(server, "1.0.0"), NOWHERE + ARCHIVE)))
    start(daemons, own_group=True)
    with window_process("agents") as window:
        page = page_for("light").page
        page.goto(window.url)
        page.get_by_label("Search the registry").fill("demo")
        page.get_by_role("button", name="Add Demo ACP").click()
        failed = page.locator('[data-job="demo-acp"][data-phase="failed"]')
        failed.wait_for(timeout=LIVE)
        assert UNKNOWN_NAME in failed.inner_text() and "Errno" not in failed.inner_text()
        assert not (paths.registry_agents_dir() / "demo-acp").exists()
        assert json.loads(cli("agents", "list", "--json").stdout) == []
    write_config(registry=f"{NOWHERE}/registry.json")  # a registry never read here: no copy cached
    with window_process("agents") as window:
        page = page_for("dark").page
        page.goto(window.url)
        page.get_by_label("Search the registry").fill("demo")
        problem = page.locator(".problem", has_text="Cannot read the registry")
        problem.wait_for(timeout=LIVE)
        assert UNKNOWN_NAME in problem.inner_text() and "no copy is cached" in problem.inner_text()
