"""The agents page in a real browser (Debian's chromium through Playwright) against a real daemon
and real agent subprocesses: agents added from a locally served ACP Registry (a binary downloaded
with its progress shown, an npx package fetched), connected, then removed with their files; a
custom agent's plain inline errors (no such program, a name taken; not an ACP agent: kept, stopped); a secret set
from the page that reaches the real GNOME Keyring and nowhere else."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from acp_tray.assets import no_icon_path
from acp_tray.files import paths
from acp_tray.registry.installed import installed_size
from acp_tray.registry.progress import megabytes
from tests.support.agents import AUTH_AGENT
from tests.support.browser import PageFor, Screenshot
from tests.support.config import write_config
from tests.support.daemons import DaemonProcess, cli, start
from tests.support.registry_server import ICON, Drip, RegistryServer, demo_binary, entry, script, tree
from tests.support.window import PHONE, sideways, window_process

pytestmark = pytest.mark.usefixtures("whole_groups")  # the npx agent's processes end with the test

LIVE = 10_000  # ms: an agent's start, a download
DEMO = '[agents.demo]\ncommand = ["acp-tray", "demo-agent"]\n'


QUICK_SUBMIT = """() => new Promise((resolve) => {
  const form = () => document.querySelector("#custom-agent");
  form().querySelector("[name=name]").value = "quick";
  form().querySelector("[name=command]").value = "no-such-agent-program";
  let answers = 0;
  document.body.addEventListener("htmx:afterSwap", () => {
    answers += 1;
    if (answers === 1) setTimeout(() => form().requestSubmit(), 0);  // before htmx settles the answer
    else resolve(answers);
  });
  form().requestSubmit();
})"""  # the form submitted again the moment its first answer is in


def configured() -> dict[str, Any]:
    return {row["name"]: row for row in json.loads(cli("agents", "list", "--json").stdout)}


def fake_npx(tmp_path: Path) -> str:
    """An `npx` that takes a moment (as fetching a package does), then runs a real ACP agent that
    needs a sign-in (tests/agents/auth_agent.py); the PATH with it."""
    npx = tmp_path / "bin" / "npx"
    npx.parent.mkdir()
    token = tmp_path / "token"
    npx.write_bytes(
        script(f"sleep 1.5\nAUTH_AGENT_OFFER=token,key AUTH_AGENT_TOKEN={token} exec {sys.executable} {AUTH_AGENT}")
    )
    npx.chmod(0o755)
    return f"{npx.parent}:{os.environ['PATH']}"


def test_agents_added_from_the_registry_with_progress_then_removed_with_their_files(
    server: RegistryServer,
    daemons: list[DaemonProcess],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    page_for: PageFor,
    screenshot: Screenshot,
) -> None:
    binary = demo_binary(server, "1.2.0")
    archive = "/dl/demo-1.2.0.tar.gz"
    server.drips[archive] = Drip(2.0 / len(server.files[archive]))  # about 2 s: the progress shows
    server.files["/demo-acp.svg"] = ICON
    npx_entry = entry("helper-acp", "0.3.0", {"npx": {"package": "@example/helper-acp"}}, name="Helper")
    config = write_config(registry=server.publish(binary, npx_entry))
    path = fake_npx(tmp_path)
    monkeypatch.setenv("PATH", path)  # the window installs: it looks for npx where the daemon runs it
    start(daemons, own_group=True, env={"PATH": path})
    with window_process("agents") as window:
        watched = page_for("light")
        page = watched.page
        page.goto(window.url)
        page.get_by_label("Search the registry").fill("demo")
        result = page.locator('[data-entry="demo-acp"]')
        result.wait_for(timeout=LIVE)
        page.locator('[data-entry="helper-acp"]').wait_for(state="detached")  # searched
        assert "binary" in result.inner_text() and "1.2.0" in result.inner_text()
        page.get_by_role("button", name="Add Demo ACP").click()
        job = page.locator('[data-job="demo-acp"]')
        job.get_by_text(re.compile(r"Downloading \d+%")).wait_for(timeout=LIVE)  # live progress
        screenshot(watched, "agents-download-light")
        page.locator('[data-job="demo-acp"][data-phase="connected"]').wait_for(timeout=LIVE)
        page.locator('[data-agent="demo-acp"][data-state="connected"]').wait_for(timeout=LIVE)

        page.get_by_label("Search the registry").fill("helper")
        page.get_by_role("button", name="Add Helper").click()
        page.locator('[data-job="helper-acp"]').get_by_text("Fetching the package with npx").wait_for(timeout=LIVE)
        page.locator('[data-job="helper-acp"][data-phase="connected"]').wait_for(timeout=LIVE)
        needs = page.locator('[data-job="helper-acp"] .signin-needs').inner_text()
        assert (
            needs
            == "helper-acp needs you to sign in: Use a token, API key. Sign in from its entry in the list of agents."
        )
        assert configured()["helper-acp"]["state"] == "needs sign-in"
        assert '"npx", "-y", "--", "@example/helper-acp@0.3.0"' in config.read_text()
        page.locator('[data-manage="helper-acp"]').wait_for()
        icon = window.request("GET", "/manage/demo-acp/icon.png")  # drawn by acp-tray: never the SVG itself
        assert icon.status == 200 and icon.headers["Content-Type"] == "image/png" and icon.body[1:4] == "PNG"
        assert icon.body != no_icon_path().read_bytes().decode("utf-8", "replace")  # the agent's own, not the disc
        screenshot(watched, "agents-light")

        home = paths.registry_agents_dir() / "demo-acp"
        size = installed_size("demo-acp", paths.registry_agents_dir())
        assert size is not None and "1.2.0/demo/bin/demo-acp" in tree(home)
        page.get_by_role("button", name="Remove demo-acp…").click()
        confirm = page.get_by_role("group", name="Confirm removing demo-acp")
        assert f"frees {megabytes(size)}" in confirm.inner_text() and str(home) not in confirm.inner_text()
        confirm.get_by_text("Details").click()  # where its files are
        assert f"Its files: {home}" in confirm.inner_text()
        screenshot(watched, "agents-remove-light")
        confirm.get_by_role("button", name="Remove demo-acp").click()
        page.get_by_text(f"demo-acp removed; its installed files were deleted ({megabytes(size)} freed)").wait_for()
        assert not home.exists() and "[agents.demo-acp]" not in config.read_text()
        assert "demo-acp" not in configured()
        page.locator('[data-agent="demo-acp"]').wait_for(state="detached", timeout=LIVE)

        # removed elsewhere (the CLI): the list and the registry's "Added" follow, without a reload
        helper = page.locator('[data-entry="helper-acp"]')
        assert helper.get_by_text("Added").is_visible()
        assert cli("agents", "remove", "helper-acp").returncode == 0
        page.locator('[data-manage="helper-acp"]').wait_for(state="detached", timeout=LIVE)
        helper.get_by_role("button", name="Add Helper").wait_for(timeout=LIVE)
        assert not watched.problems, watched.problems


def test_a_custom_agent_gets_plain_inline_errors_then_is_added(
    daemons: list[DaemonProcess], tmp_path: Path, page_for: PageFor, screenshot: Screenshot
) -> None:
    config = write_config(DEMO)
    start(daemons, "demo")
    with window_process("agents") as window:
        watched = page_for("dark")
        page = watched.page
        page.goto(window.url)
        form = page.locator("#custom-agent")
        name, command = page.get_by_label("Name", exact=True), page.get_by_label("Command, with its arguments")

        name.fill("ghost")
        command.fill("no-such-agent-program --acp")
        form.get_by_role("button", name="Add agent").click()
        error = page.locator("#custom-command-error")
        error.get_by_text("There is no program called 'no-such-agent-program'").wait_for()
        assert page.get_by_label("Command, with its arguments").get_attribute("aria-invalid") == "true"

        # a second submit the moment the first answer is in: still the page's own, never a plain form
        # submit that reloads the page and loses what was typed
        assert page.evaluate(QUICK_SUBMIT) == 2
        page.locator("#custom-command-error").get_by_text(
            "There is no program called 'no-such-agent-program'"
        ).wait_for()
        page.get_by_label("Name", exact=True).fill("kitty")
        page.get_by_label("Command, with its arguments").fill("cat")
        form.get_by_role("button", name="Add agent").click()
        page.get_by_text("'cat' ran, but it does not speak ACP").wait_for(timeout=LIVE)
        assert page.url == window.url.split("/open", 1)[0] + "/agents"

        page.get_by_label("Name", exact=True).fill("demo")
        page.get_by_label("Command, with its arguments").fill(f"{sys.executable} -m acp_tray demo-agent")
        form.get_by_role("button", name="Add agent").click()
        page.locator("#custom-name-error").get_by_text("The name 'demo' is taken").wait_for()
        screenshot(watched, "agents-custom-errors-dark")

        page.get_by_label("Name", exact=True).fill("mine")
        page.get_by_label("Working directory (optional; your home folder if empty)").fill(str(tmp_path))
        page.get_by_label("When it asks for permission").select_option("reject")
        form.get_by_role("button", name="Add agent").click()
        page.get_by_text("mine added and connected").wait_for(timeout=LIVE)
        agent = configured()["mine"]
        assert agent["state"] == "connected" and agent["permission"] == "reject"
        assert f'cwd = "{tmp_path}"' in config.read_text()
        page.locator('[data-manage="mine"]').wait_for()
        screenshot(watched, "agents-dark")
        assert not watched.problems, watched.problems


def test_a_secret_set_from_the_page_reaches_the_keyring_and_nothing_else(
    daemons: list[DaemonProcess],
    keyring_env: dict[str, str],
    monkeypatch: pytest.MonkeyPatch,
    page_for: PageFor,
    screenshot: Screenshot,
) -> None:
    value = "sk-page-7f3a9c1e5b"
    config = write_config(DEMO)
    for key, setting in keyring_env.items():
        monkeypatch.setenv(key, setting)  # the window stores it, the daemon reads it
    start(daemons, "demo", env=keyring_env)
    with window_process("agents") as window:
        watched = page_for("dark")
        page = watched.page
        page.goto(window.url)
        row = page.locator('[data-manage="demo"]')
        row.get_by_text("Secrets").click()
        row.get_by_label("Secret name for demo").fill("DEMO_API_KEY")
        row.get_by_label("Secret value for demo").fill(value)
        row.get_by_role("button", name="Store the secret for demo").click()
        page.get_by_text("demo: DEMO_API_KEY stored in the OS keyring").wait_for()
        assert keyring_value("demo/DEMO_API_KEY", keyring_env) == value
        assert page.locator('[data-manage="demo"] .secret-names').inner_text().startswith("DEMO_API_KEY")
        assert value not in page.content()
        assert row.get_by_label("Secret value for demo").input_value() == ""
        for where in (config, paths.history_file(), paths.secret_names_file(), paths.state_dir()):
            files = [where] if where.is_file() else [p for p in where.rglob("*") if p.is_file()]
            for file in files:
                assert value not in file.read_text(errors="replace"), file
        screenshot(watched, "agents-secret-dark")

        page.get_by_role("button", name="Delete DEMO_API_KEY of demo").click()
        page.get_by_text("demo: DEMO_API_KEY deleted from the OS keyring").wait_for()
        assert keyring_value("demo/DEMO_API_KEY", keyring_env) == "None"
        assert not watched.problems, watched.problems


def keyring_value(entry: str, env: dict[str, str]) -> str:
    code = f"import keyring; print(keyring.get_password('acp-tray', {entry!r}))"
    found = subprocess.run([sys.executable, "-c", code], env={**os.environ, **env}, capture_output=True, text=True)
    return found.stdout.strip()


def hostile_svg(tracker: str) -> bytes:
    return (
        '<svg xmlns="http://www.w3.org/2000/svg" onload="window.parent.__pwned=1">'
        f'<script>window.parent.__pwned=1</script><image href="{tracker}"/><rect width="16" height="16"/></svg>'
    ).encode()


def test_an_upgrade_from_the_page_and_registry_text_and_icons_stay_inert(
    server: RegistryServer, daemons: list[DaemonProcess], page_for: PageFor, screenshot: Screenshot
) -> None:
    hostile = entry(
        "hostile-acp",
        "1.0.0",
        {"npx": {"package": "hostile-acp"}},
        name='<img src=x onerror="window.__pwned=1">',
        description="<script>window.__pwned=1</script> {{ 7*7 }}",
        icon=server.url("/hostile.svg"),
    )
    server.files["/hostile.svg"] = hostile_svg(server.url("/tracker.png"))
    config = write_config(registry=server.publish(demo_binary(server, "1.0.0")))
    start(daemons, own_group=True)
    assert cli("agents", "add", "demo-acp").returncode == 0
    server.publish(demo_binary(server, "1.1.0"), hostile)
    with window_process("agents") as window:
        watched = page_for("light", viewport=PHONE)
        page = watched.page
        page.goto(window.url)
        page.get_by_role("button", name="Upgrade demo-acp to 1.1.0").click()
        page.locator('[data-job="demo-acp"][data-phase="connected"]').wait_for(timeout=LIVE)
        assert "demo-acp: 1.1.0 connected; 1.0.0 removed" in page.locator('[data-job="demo-acp"]').inner_text()
        assert "/1.1.0/demo/bin/demo-acp" in config.read_text() and "/1.0.0/" not in config.read_text()
        home = paths.registry_agents_dir() / "demo-acp"
        assert (home / "1.1.0").is_dir() and not (home / "1.0.0").exists()
        page.locator('[data-manage="demo-acp"]').get_by_text("1.1.0, from the registry").wait_for()

        shown = page.locator('[data-entry="hostile-acp"]')
        assert '<img src=x onerror="window.__pwned=1">' in shown.inner_text()  # as text
        assert "<script>window.__pwned=1</script> {{ 7*7 }}" in shown.inner_text()
        shown.locator("img.agent-icon").evaluate("img => img.decode()")  # a PNG acp-tray drew of the SVG
        icon = window.request("GET", "/registry/icons/hostile-acp.png")
        assert icon.headers["Content-Type"] == "image/png" and "<svg" not in icon.body
        assert server.hits.get("/tracker.png") is None  # an image loads nothing of its own
        assert page.evaluate("() => window.__pwned") is None
        assert not sideways(page), sideways(page)
        screenshot(watched, "agents-phone-light")
        assert not watched.problems, watched.problems
