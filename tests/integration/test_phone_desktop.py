"""An approval answered from the phone, at the desk: the bundled demo agent asks to delete its build
folder, the real daemon (with its tray, notifications on real dunst, the push target's URL in a
real GNOME Keyring) pushes it with buttons to a stand-in of ntfy, and the "phone" presses "Allow
once". The agent goes on as allowed, the "Needs approval" notification leaves the screen, the
history says it was answered from the phone, and the phone is told "Allowed"."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

from tests.desktop.keyring import secret_service
from tests.support.config import history
from tests.support.daemons import DaemonProcess, cli_env
from tests.support.ntfy_stand_in import Phone, ntfy_stand_in
from tests.support.waiting import until

TOPIC = "desk-Qx8secret"
CONFIG = """[severity.info]\nroute = "tray"\n[severity.error]\nroute = "tray"\n[severity.other]\nroute = "tray"
[push]\nwhen = "always"\nanswers = true\n[agents.demo]\ncommand = ["acp-tray", "demo-agent"]\n"""


def displayed(env: dict[str, str]) -> int:
    return int(subprocess.run(["dunstctl", "count", "displayed"], env=env, capture_output=True, text=True).stdout)


def test_allowed_from_the_phone_the_agent_goes_on_and_the_desk_shows_it(
    tmp_path: Path, desktop: Any, daemons: list[DaemonProcess]
) -> None:
    desktop.close_all()
    config = tmp_path / "config.toml"
    config.write_text(CONFIG, encoding="utf-8")
    with (
        ntfy_stand_in() as ntfy,
        secret_service(tmp_path / "keyring", bus=desktop.env["DBUS_SESSION_BUS_ADDRESS"]) as keys,
    ):
        env = cli_env(**{**desktop.env, **keys}, ACP_TRAY_DEMO_INTERVAL="0.05", PYSTRAY_BACKEND="xorg")
        daemon = DaemonProcess("run", "--config", str(config), env=env)
        daemons.append(daemon)
        assert "notifications: freedesktop (dunst" in daemon.wait_for_line("notifications:")
        daemon.wait_for_lines("demo  connected")

        def run(*args: str, text: str | None = None) -> subprocess.CompletedProcess[str]:
            return subprocess.run(
                [sys.executable, "-m", "acp_tray", "--config", str(config), *args],
                env=env, input=text, capture_output=True, text=True, timeout=60,
            )  # fmt: skip

        assert run("push", "add", "phone", text=f"ntfy://127.0.0.1:{ntfy.port}/{TOPIC}\n").returncode == 0
        until(lambda: len(history()) >= 4, 30, "the demo's introduction")  # its notices, out of the way
        desktop.close_all()
        prompt = subprocess.Popen(
            [sys.executable, "-m", "acp_tray", "prompt", "demo", "delete the build folder"],
            env=env, stdout=subprocess.PIPE, text=True,
        )  # fmt: skip
        (ask,) = until(lambda: [m for m in ntfy.on(TOPIC) if m.get("actions")], 30, "the push with buttons")
        until(lambda: displayed(env) == 1, 30, "the approval on screen")
        assert [a["label"] for a in ask["actions"]] == ["Allow once", "Reject"]
        assert Phone().press(ask, "Allow once") == 200
        assert "You allowed it" in prompt.communicate(timeout=60)[0]
        until(lambda: displayed(env) == 0, 30, "the answered approval to leave the screen")
        assert json.loads(run("approvals", "--json").stdout) == []
        until(lambda: [m["title"] for m in ntfy.on(TOPIC) if m["title"] == "Allowed"], 30, "the phone told")
        (record,) = [r for r in history() if r["title"] == "Answered from the phone"]
        assert record["description"] == "Request 1 was answered 'allow' from the phone (target phone)."
        assert daemon.stop() == 0
