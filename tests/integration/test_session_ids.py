"""An agent's session ids are unique only within one connection. The demo agent numbers its
sessions from 1 in every process and (on ACP 2) resumes any id it is asked to: after a daemon
restart, a remembered session is resumed as `demo-session-1` and the next new session gets
`demo-session-1` too. Each must still get its own replies and turn ends."""

from __future__ import annotations

import json

from tests.support.daemons import DaemonProcess, cli


def run_daemon(daemons: list[DaemonProcess]) -> DaemonProcess:
    daemon = DaemonProcess("run", "--headless")
    daemons.append(daemon)
    daemon.wait_for_line("demo  connected")
    return daemon


def live_sessions() -> dict[str, dict[str, object]]:
    listed = cli("sessions", "--json")
    assert listed.returncode == 0, listed.stderr
    return {row["name"]: row for row in json.loads(listed.stdout)}


def test_a_new_session_that_gets_a_resumed_sessions_id_after_a_daemon_restart(daemons: list[DaemonProcess]) -> None:
    first = run_daemon(daemons)
    said = cli("prompt", "demo", "hello")
    assert said.returncode == 0 and "You said: 'hello'" in said.stdout, said.stderr
    assert live_sessions()["default"]["session_id"] == "demo-session-1"
    assert cli("quit").returncode == 0 and first.proc.wait(20) == 0

    run_daemon(daemons)  # the default session is resumed as demo-session-1 (the demo resumes any id)
    other = cli("prompt", "demo", "--session", "other", "are you there", timeout=30)
    assert other.returncode == 0 and "You said: 'are you there'" in other.stdout, other.stderr
    again = cli("prompt", "demo", "and the default", timeout=30)
    assert again.returncode == 0 and "You said: 'and the default'" in again.stdout, again.stderr
    rows = live_sessions()
    assert rows["other"]["state"] == rows["default"]["state"] == "idle"
    assert rows["other"]["session_id"] != rows["default"]["session_id"]
    assert cli("quit").returncode == 0
