"""A secret kept with `acp-tray agents secret` (the OS keyring: a real GNOME Keyring on the test
desktop's bus) never reaches a log, the history or a notification, even when the agent prints it.

The agent is a real subprocess that prints its environment to stderr and exits 3, again and again,
until acp-tray stops restarting it; the "Keeps crashing; stopped" notice quotes its last stderr
lines. The keyring value and a secret-looking `env` value of the configuration, printed on the same
line, must both be masked: in the log at -vvv, history.jsonl, `history --json`, the daemon's console,
`status --json`, and dunst's history (`dunstctl history`).
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

from acp_tray.files import paths
from tests.desktop.keyring import secret_service
from tests.support.daemons import DaemonProcess, cli, cli_env
from tests.support.waiting import until

KEYRING_SECRET = "kr-Zq9-keyring-only-value"
CONFIG_SECRET = "cfg-Qx7-config-env-value"
# prints its environment (one variable a line, then both secrets on one line) and fails
PRINT_ENV_AND_FAIL = (
    "import os, sys, pathlib\n"
    "pathlib.Path(sys.argv[1]).write_text(os.environ.get('KEYRING_TOKEN', 'unset'))\n"
    "for k, v in sorted(os.environ.items()): print(f'{k}={v}', file=sys.stderr)\n"
    "print(f\"fatal: env KEYRING_TOKEN={os.environ.get('KEYRING_TOKEN')} \"\n"
    "      f\"CONFIG_API_KEY={os.environ.get('CONFIG_API_KEY')}\", file=sys.stderr)\n"
    "sys.exit(3)\n"
)


def test_a_keyring_secret_the_agent_prints_is_masked_everywhere(
    desktop: Any, tmp_path: Path, daemons: list[DaemonProcess]
) -> None:
    seen = tmp_path / "seen-by-agent"
    config = paths.config_file()
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text(
        'notifier = "freedesktop"\n\n[agents.leaky]\n'
        f"command = {json.dumps([sys.executable, '-c', PRINT_ENV_AND_FAIL, str(seen)])}\n"
        f'env = {{ CONFIG_API_KEY = "{CONFIG_SECRET}" }}\n',
        encoding="utf-8",
    )
    with secret_service(tmp_path / "keyring", bus=desktop.env["DBUS_SESSION_BUS_ADDRESS"]) as keyring_env:
        env = cli_env(**{**desktop.env, **keyring_env})
        stored = subprocess.run(
            [sys.executable, "-m", "acp_tray", "agents", "secret", "leaky", "KEYRING_TOKEN"],
            input=KEYRING_SECRET + "\n", capture_output=True, text=True, env=env, timeout=60,
        )  # fmt: skip
        assert stored.returncode == 0, stored.stderr
        mark = desktop.mark()
        daemon = DaemonProcess("-vvv", "run", env=env)
        daemons.append(daemon)
        history = paths.history_file()
        until(
            lambda: history.exists() and "Keeps crashing; stopped" in history.read_text(),
            timeout=90,
            what="acp-tray to stop restarting the agent",
        )
        assert seen.read_text() == KEYRING_SECRET  # it was injected: what follows is masked, not missing
        shown = {
            "history.jsonl": history.read_text(),
            "history --json": cli("history", "--json", env=env).stdout,
            "status --json": cli("status", "--json", env=env).stdout,
            "dunst": json.dumps(dunst := desktop.since(mark)),
        }
        assert daemon.stop() == 0
    shown["console"] = "\n".join(daemon.seen) + daemon.stderr_text()
    shown["log"] = "\n".join(p.read_text() for p in paths.log_file().parent.glob("*.log*"))

    for where, text in shown.items():
        assert KEYRING_SECRET not in text, f"the keyring secret is in {where}"
        assert CONFIG_SECRET not in text, f"the configured secret is in {where}"
    notice = next(json.loads(line) for line in history.read_text().splitlines() if "Keeps crashing" in line)
    assert "fatal: env KEYRING_TOKEN=*** CONFIG_API_KEY=***" in notice["description"]  # quoted, masked
    assert "KEYRING_TOKEN=***" in shown["log"]  # the stderr lines at DEBUG and in the tail at INFO
    assert any("Keeps crashing" in item["summary"] and "KEYRING_TOKEN=***" in item["body"] for item in dunst)
