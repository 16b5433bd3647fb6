"""Push through real Apprise to a local HTTP server standing in for the services (Apprise's json://
and a self-hosted ntfy:// URL), from a real headless daemon hosting a scripted agent, with the
targets' URLs in a real keyring (GNOME Keyring on a private bus). The "away" cases with the X11 idle
source come with the away sources; tests/unit/test_push_policy.py has the away gate with a test source."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from acp_tray.files import paths
from tests.support.agents import scripted_command
from tests.support.config import history, write_config
from tests.support.daemons import DaemonProcess, cli, cli_env
from tests.support.push_cli import add, command_lines
from tests.support.push_server import PushService, push_service
from tests.support.waiting import until

TOKEN = "hook-Tq7pushtoken"  # the secret part of a json:// URL: its path
TOPIC = "topic-Wv3secret"  # an ntfy topic is its secret
SESSION = "scripted-1"


@pytest.fixture
def service() -> Iterator[PushService]:
    with push_service() as running:
        yield running


def notice(severity: str, title: str) -> dict[str, Any]:
    return {"update": {"sessionUpdate": "notice", "severity": severity, "title": title, "description": f"({title})"}}


def go(tmp_path: Path, name: str) -> dict[str, Any]:
    return {"wait_file": str(tmp_path / name)}


def configure(steps: list[dict[str, Any]], push: str, extra: str = "") -> Path:
    table = (
        "[agents.bot]\n"
        f"command = {json.dumps(scripted_command())}\n"
        f"env = {{ SCRIPTED_AGENT_STEPS = {json.dumps(json.dumps(steps))} }}\n"
    )
    return write_config(f"[push]\n{push}\n{extra}\n", table)


def run(env: dict[str, str], *args: str) -> DaemonProcess:
    daemon = DaemonProcess(*args, "run", "--headless", env=env)
    daemon.wait_for_line("control: ")
    daemon.wait_for_lines("  bot  connected")
    return daemon


def record(title: str) -> dict[str, Any]:
    return next(r for r in history() if r["title"] == title)


def recorded(*titles: str) -> bool:
    seen = {r["title"] for r in history()}
    return all(title in seen for title in titles)


def test_pushes_reach_the_services_and_their_urls_show_nowhere(
    tmp_path: Path, service: PushService, keyring_env: dict[str, str], daemons: list[DaemonProcess]
) -> None:
    permission = {
        "request": "session/request_permission",
        "params": {
            "sessionId": SESSION,
            "toolCall": {"toolCallId": "t1", "title": "Run rm -rf build"},
            "options": [{"optionId": "yes", "name": "Allow", "kind": "allow_once"}],
        },
    }
    steps = [go(tmp_path, "go"), notice("error", "Disk full"), notice("info", "Chatter"), permission]
    config = configure(steps, 'when = "always"\nkinds = ["error", "approvals"]')
    env = cli_env(**keyring_env)
    daemon = run(env, "-vvv")
    daemons.append(daemon)
    json_url, ntfy_url = f"json://127.0.0.1:{service.port}/{TOKEN}", f"ntfy://127.0.0.1:{service.port}/{TOPIC}"
    add("phone", json_url, env)
    add("desk", ntfy_url, env)
    refused = subprocess.run(
        [sys.executable, "-m", "acp_tray", "push", "add", "typo"],
        input="ntfx://127.0.0.1/not-a-service\n", capture_output=True, text=True, env=env, timeout=60,
    )  # fmt: skip
    assert refused.returncode != 0 and "Apprise does not know that URL" in refused.stderr, refused.stderr
    assert "not-a-service" not in refused.stderr + refused.stdout
    listed = json.loads(cli("push", "list", "--json", env=env).stdout)
    assert listed == [
        {"name": "desk", "service": "ntfy", "chosen": True, "answers": "off"},
        {"name": "phone", "service": "json", "chosen": True, "answers": "one-way"},
    ]
    tested = cli("push", "test", "phone", env=env)
    assert tested.returncode == 0 and "accepted" in tested.stdout, tested.stdout + tested.stderr
    assert [r.json()["title"] for r in service.received] == ["acp-tray: test"]

    (tmp_path / "go").touch()
    until(lambda: len(service.received) >= 5, 30, "the notices' pushes")
    until(lambda: recorded("Disk full", "Chatter", "Needs approval"), 30, "the history")
    # each push goes out on its own (a slow service does not hold the next): in any order
    phone = {r.json()["title"]: r.json() for r in service.received if r.path == f"/{TOKEN}"}
    desk = [r.json() for r in service.received if r.path == "/" and r.json().get("topic") == TOPIC]
    assert len(service.received) == 5 and sorted(phone) == ["acp-tray: test", "bot: Disk full", "bot: Needs approval"]
    assert sorted(p["title"] for p in desk) == ["bot: Disk full", "bot: Needs approval"]  # once each
    assert phone["bot: Disk full"]["message"] == "(Disk full)"
    approval = phone["bot: Needs approval"]["message"]
    assert approval.startswith("It wants: Run rm -rf build\nIt waits for your answer at the desk")
    assert record("Disk full")["pushed"] == ["desk", "phone"]
    assert record("Chatter")["pushed"] == []  # info is not among the kinds
    assert record("Needs approval")["pushed"] == ["desk", "phone"]

    assert "pushed: desk, phone" in cli("history", env=env).stdout
    checks = {row["name"]: row for row in json.loads(cli("doctor", "--json", env=env).stdout)}
    assert checks["push targets"]["status"] == "ok" and "desk (ntfy), phone (json)" in checks["push targets"]["detail"]
    assert checks["Apprise"]["status"] == "ok" and checks["away"]["detail"]  # the away source: doctor names it
    shown = {
        "doctor": json.dumps(checks),
        "history": paths.history_file().read_text(encoding="utf-8"),
        "history --json": cli("history", "--json", env=env).stdout,
        "status --json": cli("status", "--json", env=env).stdout,
        "push list": cli("push", "list", env=env).stdout,
        "config.toml": config.read_text(encoding="utf-8"),
        "state dir": "".join(p.read_text(errors="replace") for p in paths.state_dir().glob("*") if p.is_file()),
        "cmdlines": "\n".join(command_lines()),
    }
    removed = cli("push", "remove", "desk", env=env)
    assert removed.returncode == 0 and json.loads(cli("push", "list", "--json", env=env).stdout)[0]["name"] == "phone"
    assert daemon.stop() == 0
    shown["console"] = "\n".join(daemon.seen) + daemon.stderr_text()
    shown["log"] = "\n".join(p.read_text(errors="replace") for p in paths.log_file().parent.glob("*.log*"))
    assert "push to phone accepted" in shown["log"]  # -vvv: Apprise's and urllib3's own lines are there too
    for where, text in shown.items():
        for secret in (TOKEN, TOPIC):
            assert secret not in text, f"{secret} is in {where}"


def test_never_holds_every_push_and_dnd_all_but_what_it_allows(
    tmp_path: Path, service: PushService, keyring_env: dict[str, str], daemons: list[DaemonProcess]
) -> None:
    steps = [
        go(tmp_path, "first"),
        notice("error", "While never"),
        go(tmp_path, "second"),
        notice("warning", "Held by DND"),
        notice("error", "Let through"),
    ]
    kinds = 'kinds = ["error", "warning"]'
    config = configure(steps, f'when = "never"\n{kinds}')
    env = cli_env(**keyring_env)
    daemons.append(run(env))
    add("phone", f"json://127.0.0.1:{service.port}/{TOKEN}", env)
    (tmp_path / "first").touch()
    until(lambda: recorded("While never"), 30, "the first notice")
    assert record("While never")["pushed"] == []
    text = config.read_text(encoding="utf-8").replace('when = "never"', 'when = "always"')
    config.write_text(text + '\n[dnd]\nenabled = true\nallow = ["error"]\n', encoding="utf-8")
    until(lambda: json.loads(cli("status", "--json", env=env).stdout)["dnd"] == "on", 30, "DND from the file")
    (tmp_path / "second").touch()
    until(lambda: recorded("Held by DND", "Let through"), 30, "the notices under DND")
    until(lambda: service.received, 30, "the push let through")
    assert record("Held by DND")["pushed"] == [] and record("Let through")["pushed"] == ["phone"]
    assert [r.json()["title"] for r in service.received] == ["bot: Let through"]


def test_a_flood_gives_the_rate_limit_s_pushes_and_one_summary(
    tmp_path: Path, service: PushService, keyring_env: dict[str, str], daemons: list[DaemonProcess]
) -> None:
    flood = {"repeat": 1000, **notice("error", "Flood {n}")}
    configure([go(tmp_path, "go"), flood], 'when = "always"\nburst = 3\nper = 45')  # a summary after 15 s
    env = cli_env(**keyring_env)
    daemons.append(run(env))
    add("phone", f"json://127.0.0.1:{service.port}/{TOKEN}", env)
    (tmp_path / "go").touch()
    until(lambda: len(service.received) >= 4, 40, "the pushes and the summary")
    until(lambda: recorded("Flood 999"), 30, "the whole flood in the history")
    titles = [r.json()["title"] for r in service.received]
    assert sorted(titles[:3]) == ["bot: Flood 0", "bot: Flood 1", "bot: Flood 2"]  # sent side by side
    assert titles[3:] == ["997 more notices from bot"]
    assert sum(1 for r in history() if r["pushed"]) == 3


def test_a_target_that_refuses_or_hangs_is_retried_then_said_once_behind_the_desktop(
    tmp_path: Path, service: PushService, keyring_env: dict[str, str], daemons: list[DaemonProcess]
) -> None:
    steps = [go(tmp_path, "go"), notice("error", "First"), go(tmp_path, "then"), notice("error", "Second")]
    configure(steps, 'when = "always"\nburst = 10')
    env = cli_env(**keyring_env)
    daemon = run(env, "-v")
    daemons.append(daemon)
    add("down", f"json://127.0.0.1:{service.port}/refuse", env)
    add("stuck", f"json://127.0.0.1:{service.port}/hang?rto=1&cto=1", env)
    (tmp_path / "go").touch()
    until(lambda: service.under("/hang") and service.under("/refuse"), 30, "the first tries")
    (tmp_path / "then").touch()  # the agent's next notice, while the first pushes are still being tried
    warned = ["Push to down failed", "Push to stuck failed"]
    until(lambda: recorded(*warned), 60, "the warnings")
    titles = [r["title"] for r in history()]
    assert titles.index("Second") < min(titles.index(w) for w in warned)  # the desktop did not wait for push
    until(lambda: len(service.under("/refuse")) == 8 and len(service.under("/hang")) == 8, 60, "every retry")
    assert sorted(titles.count(w) for w in warned) == [1, 1]  # said once per target, not per push
    assert sorted(r.json()["title"] for r in service.under("/refuse")) == ["bot: First"] * 4 + ["bot: Second"] * 4
    assert daemon.stop() == 0


# away: the X server's idle time under the tests' Xvfb -------------------------------------------------

NO_BUS = "unix:path=/nonexistent/acp-tray-test-bus"


def idle_for(seconds: float) -> None:
    """Once the X server has seen no input for `seconds` (read as the daemon reads it)."""
    from acp_tray.away.select import away_source

    source = away_source()
    assert source.name == "X11 idle time", source.name
    until(lambda: (source.idle_seconds() or 0.0) >= seconds, 30, f"{seconds:g} s without input")


def test_away_pushes_while_the_person_is_idle_not_after_they_move_the_mouse(
    tmp_path: Path, service: PushService, desktop_env: dict[str, str], daemons: list[DaemonProcess],
    monkeypatch: pytest.MonkeyPatch,
) -> None:  # fmt: skip
    from tests.desktop.keyring import secret_service
    from tests.support.trays import xdotool

    monkeypatch.setenv("DBUS_SYSTEM_BUS_ADDRESS", NO_BUS)  # no logind: the X server's idle time alone
    monkeypatch.delenv("WAYLAND_DISPLAY", raising=False)
    permission = {
        "request": "session/request_permission",
        "params": {
            "sessionId": SESSION,
            "toolCall": {"toolCallId": "t1", "title": "Push to main"},
            "options": [{"optionId": "yes", "name": "Allow", "kind": "allow_once"}],
        },
    }
    steps = [
        go(tmp_path, "idle"), notice("error", "While away"),
        go(tmp_path, "back"), notice("error", "While here"),
        go(tmp_path, "idle again"), permission,
    ]  # fmt: skip
    configure(steps, 'when = "away"\naway_after = 2')
    x11 = {**desktop_env, "DBUS_SYSTEM_BUS_ADDRESS": NO_BUS}
    with secret_service(tmp_path / "keyring", bus=desktop_env["DBUS_SESSION_BUS_ADDRESS"]) as keyring_env:
        env = cli_env(**{**x11, **keyring_env})
        env.pop("WAYLAND_DISPLAY", None)
        daemon = run(env)
        daemons.append(daemon)
        add("phone", f"json://127.0.0.1:{service.port}/{TOKEN}", env)
        idle_for(3)
        (tmp_path / "idle").touch()
        until(lambda: recorded("While away"), 30, "the notice while away")
        assert record("While away")["pushed"] == ["phone"]
        xdotool(env, "mousemove", "21", "21")
        xdotool(env, "mousemove", "22", "22")  # one of the two moves the pointer, wherever it was
        (tmp_path / "back").touch()
        until(lambda: recorded("While here"), 30, "the notice at the desk")
        assert record("While here")["pushed"] == []  # recorded once the away source had answered
        idle_for(3)
        (tmp_path / "idle again").touch()
        until(lambda: recorded("Needs approval"), 30, "the approval while away")
        until(lambda: len(service.received) >= 2, 30, "the approval's push")
        assert record("Needs approval")["pushed"] == ["phone"]
        assert daemon.stop() == 0
    assert [r.json()["title"] for r in service.received] == ["bot: While away", "bot: Needs approval"]  # once each
