"""Quiet by default, on a real notification server (dunst on a private bus, Xvfb) with the real daemon
(`acp-tray run`) and real agents: one popup per incident, updated in place (a crash loop: its restarts
counted, then that it stopped, with its stderr once), not again at the next start of acp-tray for the
same loop; an approval's popup stays for the approval's own wait, not the warnings' popup timeout; a
sign-in's popup leaves the screen once the agent is signed in. `dunstctl` says what was shown."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from acp_tray.files import paths
from acp_tray.state.history import read_history
from tests.support.agents import auth_agent_table, session_agent_table
from tests.support.daemons import DaemonProcess, agent_state, cli_env
from tests.support.waiting import until

QUIET = '[severity.info]\nroute = "tray"\n[severity.other]\nroute = "tray"\n'
DEMO = '[agents.demo]\ncommand = ["acp-tray", "demo-agent"]\npermission_timeout = 300\n'


def run_daemon(config: Path, desktop: Any, daemons: list[DaemonProcess]) -> DaemonProcess:
    env = cli_env(**desktop.env, ACP_TRAY_DEMO_INTERVAL="0.05", PYSTRAY_BACKEND="xorg")
    daemon = DaemonProcess("run", "--config", str(config), env=env)
    daemons.append(daemon)
    assert "notifications: freedesktop (dunst" in daemon.wait_for_line("notifications:")
    return daemon


def own_records(title: str) -> list[dict[str, Any]]:
    return [
        r
        for r in read_history(paths.history_file())
        if isinstance(r, dict) and r["title"] == title and r["source"] == "acp-tray"
    ]


def test_a_crash_loop_is_one_popup_updated_in_place_then_stopped_with_its_stderr_once_and_not_again_at_the_next_start(
    tmp_path: Path, desktop: Any, daemons: list[DaemonProcess], monitor: Path
) -> None:
    """The agent exits at every start: restarted after 1, 2, 4 and 8 s, then left stopped (5 crashes
    in a row). On main: four "Crashed" popups and a "Keeps crashing; stopped" whose body said the
    stderr line twice; and the same five again at every start of acp-tray."""
    config = tmp_path / "config.toml"
    config.write_text(
        QUIET + session_agent_table("crasher", env={"SESSION_AGENT_EXIT_AT_START": "2"}), encoding="utf-8"
    )
    mark = desktop.mark()
    daemon = run_daemon(config, desktop, daemons)
    until(lambda: own_records("Keeps crashing; stopped"), timeout=60, what="the crash loop given up on")
    assert len(own_records("Crashed")) == 4  # each restart is in the history

    def crasher_calls() -> list[tuple[str, int, int]]:
        return [call for call in notify_calls(monitor.read_text(encoding="utf-8")) if call[0].startswith("crasher:")]

    calls = until(
        lambda: (seen := crasher_calls()) and seen[-1][0].endswith("stopped") and seen, what="its last Notify"
    )
    assert [summary for summary, _, _ in calls] == [
        "crasher: Crashed", "crasher: Crashed ×2", "crasher: Crashed ×3", "crasher: Crashed ×4",
        "crasher: Keeps crashing; stopped",
    ]  # fmt: skip
    replaced = {replaces for _, replaces, _ in calls[1:]}
    assert calls[0][1] == 0 and len(replaced) == 1 and 0 not in replaced  # one popup, each call updates it
    shown = desktop.since(mark)  # what dunst showed: closed now, into its history
    assert [item["summary"] for item in shown] == ["crasher: Keeps crashing; stopped"]
    body = shown[0]["body"]
    assert body.count("session agent: exiting at start with 2") == 1, body  # its stderr, once
    assert "It crashed 5 times in a row" in body and "acp-tray agents restart crasher" in body
    assert daemon.stop() == 0

    mark = desktop.mark()
    again = run_daemon(config, desktop, daemons)  # the same loop at the next start: no popup
    until(lambda: len(own_records("Keeps crashing; stopped")) == 2, timeout=60, what="the loop given up on again")
    assert len(crasher_calls()) == len(calls)  # no Notify for it
    assert desktop.since(mark) == []
    told = own_records("Keeps crashing; stopped")[-1]
    assert (told["notified"], told["tray"], told["suppressed"]) == (False, True, "told")
    assert again.stop() == 0
    assert paths.crash_record_file().stat().st_mode & 0o777 == 0o600
    assert "exiting at start" not in paths.crash_record_file().read_text(encoding="utf-8")  # a digest, not its text


def notify_calls(monitor_output: str) -> list[tuple[str, int, int]]:
    """Each `Notify` call dbus-monitor saw: its summary, `replaces_id` and expire_timeout (ms)."""
    found = []
    for call in monitor_output.split("method call")[1:]:
        lines = [line.strip() for line in call.splitlines()]
        strings = [line[8:-1] for line in lines if line.startswith('string "')]
        replaces = [int(line.split()[-1]) for line in lines if line.startswith("uint32 ")]
        ints = [int(line.split()[-1]) for line in lines if line.startswith("int32 ")]
        if len(strings) >= 3 and replaces and ints:  # app name, icon, summary...; the timeout comes last
            found.append((strings[2], replaces[0], ints[-1]))
    return found


def notify_timeouts(monitor_output: str) -> dict[str, int]:
    """Each summary's expire_timeout (ms), as it was last sent."""
    return {summary: timeout for summary, _, timeout in notify_calls(monitor_output)}


@pytest.fixture
def monitor(desktop: Any, tmp_path: Path) -> Any:
    out = tmp_path / "monitor.txt"
    rule = "type='method_call',interface='org.freedesktop.Notifications',member='Notify'"
    with out.open("wb") as sink:
        watching = subprocess.Popen(
            ["dbus-monitor", "--address", desktop.env["DBUS_SESSION_BUS_ADDRESS"], rule], stdout=sink
        )
    try:
        yield out
    finally:
        watching.terminate()
        watching.wait(5)


def test_an_approval_popup_stays_for_the_approvals_wait_with_warnings_at_8_s(
    tmp_path: Path, desktop: Any, daemons: list[DaemonProcess], monitor: Path
) -> None:
    """Warnings pop up for 8 s; the approval (a warning) waits 300 s for its answer, and its popup with
    its buttons stays as long. On main it was sent with the warnings' 8 s."""
    config = tmp_path / "config.toml"
    config.write_text(
        QUIET + '[severity.warning]\ntimeout = 8\n[severity.error]\nroute = "tray"\n' + DEMO, encoding="utf-8"
    )
    env = cli_env(**desktop.env)
    daemon = run_daemon(config, desktop, daemons)
    daemon.wait_for_line("demo  connected")
    prompt = subprocess.Popen(
        [sys.executable, "-m", "acp_tray", "prompt", "demo", "delete the build folder"],
        env=env,
        stdout=subprocess.PIPE,
        text=True,
    )

    def approvals() -> list[dict[str, Any]]:
        listed = subprocess.run(
            [sys.executable, "-m", "acp_tray", "approvals", "--json"], env=env, capture_output=True, text=True
        )
        return list(json.loads(listed.stdout or "[]"))

    (request,) = until(approvals, what="the approval request")
    timeouts = until(
        lambda: (
            (sent := notify_timeouts(monitor.read_text(encoding="utf-8")))
            and "demo: Needs approval" in sent
            and any(summary.endswith("Using default settings") for summary in sent)
            and sent
        ),
        what="the Notify calls",
    )
    assert timeouts["demo: Needs approval"] == 300_000  # its own wait, in ms; on main: 8000
    assert timeouts.get("demo: Example: Using default settings") == 8_000, timeouts  # a warning that is only news
    answered = subprocess.run(
        [sys.executable, "-m", "acp_tray", "approve", request["id"], "allow"], env=env, capture_output=True, text=True
    )
    assert answered.returncode == 0, answered.stderr
    assert "You allowed it" in prompt.communicate(timeout=30)[0]
    assert daemon.stop() == 0


def test_a_sign_in_popup_leads_with_its_buttons_stays_and_leaves_the_screen_once_signed_in_elsewhere(
    tmp_path: Path, desktop: Any, daemons: list[DaemonProcess], monitor: Path
) -> None:
    """Signed in from a terminal (`acp-tray login`), not with the popup's button: the popup has nothing
    left to ask and dunst is told to close it. On main it stayed on screen, led by a command to type,
    and went with the warnings' 8 s."""
    config = tmp_path / "config.toml"
    config.write_text(
        QUIET + "[severity.warning]\ntimeout = 8\n" + auth_agent_table("locked", tmp_path / "locked"), encoding="utf-8"
    )
    env = cli_env(**desktop.env)
    desktop.close_all()
    daemon = run_daemon(config, desktop, daemons)
    until(lambda: agent_state("locked", env) == "needs sign-in", 30, "the sign-in")
    sent = until(
        lambda: (
            (shown := notify_timeouts(monitor.read_text(encoding="utf-8")))
            and "locked: Sign in to locked" in shown
            and shown
        ),
        what="the popup",
    )
    assert sent["locked: Sign in to locked"] == 0  # until answered
    before = [item["summary"] for item in desktop.history()]  # what dunst has taken off the screen so far
    signed = subprocess.run(
        [sys.executable, "-m", "acp_tray", "login", "locked", "token"], env=env, capture_output=True, text=True
    )
    assert signed.returncode == 0, signed.stderr
    until(
        lambda: (
            [item["summary"] for item in desktop.history()].count("locked: Sign in to locked")
            == before.count("locked: Sign in to locked") + 1
        ),
        what="the sign-in popup to leave the screen",
    )
    closed = [item for item in desktop.history() if item["summary"] == "locked: Sign in to locked"][-1]
    assert closed["body"].startswith("Choose “Use a token”"), closed["body"]  # the button's words first
    assert "acp-tray login" not in closed["body"].split("\n")[1]  # its buttons answer it: no command next
    assert daemon.stop() == 0
