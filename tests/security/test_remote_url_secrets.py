"""A remote agent's URL is shown with its credentials masked: the password and the value of every
query or fragment parameter whose name looks secret (`redact.looks_secret`: token, key, secret,
password, auth, credential, signature, sig, ...), on every surface that shows the URL.

The agent is acp-tray's demo agent behind its real WebSocket server (`demo-agent --listen`); the
URL carries `?token=…&api_key=…&sig=…&lang=en`. Checked: `agents list` (text and --json), `status`
(text and --json), `doctor`, the log at -vvv (websockets' own debug lines included), the history
and the console, also once the server has gone and the reconnection failures are reported.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from acp_tray.files import paths
from tests.support.daemons import DaemonProcess, cli, cli_env
from tests.support.waiting import until

pytestmark = pytest.mark.usefixtures("no_proxies")

SECRETS = ("tok-Zq9-remote-query", "key-Wx4-remote-query", "sig-Pv2-remote-query", "pw-Hn8-remote")


def test_a_remote_urls_query_credentials_are_masked_everywhere(daemons: list[DaemonProcess], tmp_path: Path) -> None:
    server = DaemonProcess("demo-agent", "--listen", "127.0.0.1:0")
    daemons.append(server)
    port = int(server.wait_for_line("listening on ws://127.0.0.1:").rsplit(":", 1)[1])
    token, key, sig, password = SECRETS
    url = f"ws://me:{password}@127.0.0.1:{port}/acp?token={token}&api_key={key}&lang=en&sig={sig}"
    masked = f"ws://me:***@127.0.0.1:{port}/acp?token=***&api_key=***&lang=en&sig=***"
    config = paths.config_file()
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text(f'[agents.far]\nurl = "{url}"\n', encoding="utf-8")
    daemon = DaemonProcess("-vvv", "run", "--headless", env=cli_env())
    daemons.append(daemon)
    daemon.wait_for_line("far  connected")

    shown = {
        "agents list": cli("agents", "list").stdout,
        "agents list --json": cli("agents", "list", "--json").stdout,
        "status": cli("status").stdout,
        "status --json": cli("status", "--json").stdout,
        "doctor": cli("doctor").stdout,
    }
    for where in ("agents list", "agents list --json"):
        assert masked in shown[where], (where, shown[where])  # the URL is shown, with what is not secret

    server.stop()  # the agent's server goes: each reconnection fails, naming the URL
    history = paths.history_file()
    until(lambda: history.exists() and "cannot connect to" in history.read_text(), 60, "a failed reconnection")
    shown["history"] = history.read_text()
    shown["status after"] = cli("status").stdout
    assert masked in shown["history"]
    assert daemon.stop() == 0
    shown["console"] = "\n".join(daemon.seen) + daemon.stderr_text()
    shown["log"] = "\n".join(p.read_text() for p in paths.log_file().parent.glob("*.log*"))
    assert "token=***" in shown["log"]

    for where, text in shown.items():
        for secret in SECRETS:
            assert secret not in text, f"{secret} is in {where}"


@pytest.mark.parametrize(
    ("url", "shown"),
    [
        ("wss://h/acp?access_token=a1b2c3&v=2", "wss://h/acp?access_token=***&v=2"),
        ("wss://h/acp?X-Amz-Signature=abc&X-Amz-Credential=def&X-Amz-Date=1", None),
        (
            "wss://h/acp?client_secret=x&password=y&auth=z&design=1",
            "wss://h/acp?client_secret=***&password=***&auth=***&design=1",
        ),
        ("wss://h/acp#access_token=frag", "wss://h/acp#access_token=***"),
        ("wss://h/acp?lang=en&session=abc", "wss://h/acp?lang=en&session=abc"),
    ],
)
def test_which_query_values_are_masked(url: str, shown: str | None) -> None:
    """Pure: the rule is the name (`looks_secret`), whatever the value looks like."""
    from acp_tray.logs.redact import shown_url

    expected = shown or "wss://h/acp?X-Amz-Signature=***&X-Amz-Credential=***&X-Amz-Date=1"
    assert shown_url(url) == expected
