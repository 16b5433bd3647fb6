"""A push target's URL is masked by what in it is secret, not by every word of its path (item 8 of
the security review): after `json://127.0.0.1:PORT/session/agents/TOKEN` is added, the words
"session" and "agents" still read as words in the log, a crash notice's quoted stderr, the history
and the pushes themselves, while the token (and the whole URL) shows nowhere.

A real headless daemon with the targets' URLs in a real keyring (GNOME Keyring on a private bus),
real Apprise posting to a local HTTP server, and the scripted agent: it sends an error notice, says
a line on stderr and exits, again and again, until acp-tray stops restarting it and quotes that line.
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from acp_tray.files import paths
from tests.support.agents import scripted_command
from tests.support.config import history, write_config
from tests.support.daemons import DaemonProcess, cli, cli_env
from tests.support.push_server import PushService, push_service
from tests.support.waiting import until

TOKEN = "Xk3vQ9-hookTq7Lm2pZ"  # what a webhook's token looks like
SAID = "my agent failed: session agents down"  # the agent's own words, on stderr and in its notice


@pytest.fixture
def service() -> Iterator[PushService]:
    with push_service() as running:
        yield running


def test_a_push_url_masks_its_token_and_leaves_the_words_of_its_path_readable(
    tmp_path: Path, service: PushService, keyring_env: dict[str, str], daemons: list[DaemonProcess]
) -> None:
    steps = [
        {"wait_file": str(tmp_path / "go")},
        {"update": {"sessionUpdate": "notice", "severity": "error", "title": "Build broke", "description": SAID}},
        {"stderr_text": SAID},
        {"exit": 3},
    ]
    write_config(
        '[push]\nwhen = "always"\nkinds = ["error"]\n\n[agents.bot]\n'
        f"command = {json.dumps(scripted_command())}\n"
        f"env = {{ SCRIPTED_AGENT_STEPS = {json.dumps(json.dumps(steps))} }}\n"
    )
    env = cli_env(**keyring_env)
    daemon = DaemonProcess("-vvv", "run", "--headless", env=env)
    daemons.append(daemon)
    daemon.wait_for_line("control: ")
    daemon.wait_for_lines("  bot  connected")
    url = f"json://127.0.0.1:{service.port}/session/agents/{TOKEN}"
    added = subprocess.run(
        [sys.executable, "-m", "acp_tray", "push", "add", "phone"],
        input=url + "\n", capture_output=True, text=True, env=env, timeout=60,
    )  # fmt: skip
    assert added.returncode == 0, added.stderr
    (tmp_path / "go").touch()

    until(lambda: any(r["title"] == "Keeps crashing; stopped" for r in history()), 90, "acp-tray to stop restarting")
    until(lambda: service.under(f"/session/agents/{TOKEN}"), 30, "the error notice's push")
    crash = next(r for r in history() if r["title"] == "Keeps crashing; stopped")
    assert f"Last lines of its stderr:\n{SAID}" in crash["description"]  # quoted as said, nothing masked
    pushed = service.under(f"/session/agents/{TOKEN}")[0].json()
    assert pushed["title"] == "bot: Build broke" and pushed["message"] == SAID
    shown = {
        "history.jsonl": paths.history_file().read_text(encoding="utf-8"),
        "history": cli("history", env=env).stdout,
        "status --json": cli("status", "--json", env=env).stdout,
        "push list": cli("push", "list", env=env).stdout,
    }
    assert SAID in shown["history"]
    assert daemon.stop() == 0
    shown["console"] = "\n".join(daemon.seen) + daemon.stderr_text()
    shown["log"] = "\n".join(p.read_text(errors="replace") for p in paths.log_file().parent.glob("*.log*"))
    assert f"stderr: {SAID}" in shown["log"]
    for where, text in shown.items():
        assert TOKEN not in text, f"the URL's token is in {where}"


def test_the_parts_of_a_push_url_kept_secret_are_the_ones_that_look_like_tokens() -> None:
    """Pure: Apprise puts tokens in the user, the host or the path; words and server names stay."""
    from acp_tray.logs.redact import looks_like_token
    from acp_tray.push.targets import push_url_secrets

    found = push_url_secrets(f"json://127.0.0.1:8080/session/agents/{TOKEN}?x=1")
    assert sorted(found) == sorted([f"json://127.0.0.1:8080/session/agents/{TOKEN}?x=1", TOKEN])
    bot = "123456789:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw"
    assert {"123456789", "AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw"} <= set(push_url_secrets(f"tgram://{bot}/chat"))
    user, token = "uQiRzpo4DXghDmr9QzzfQu27cmVRsG", "azGDORePK8gMaC0QOYAMyEEuzJnyUi"
    assert {user, token} <= set(push_url_secrets(f"pover://{user}@{token}"))
    assert "hunter" in push_url_secrets("mailto://alice:hunter@example.com/notify")  # a password, whatever it is
    assert "alice" not in push_url_secrets("mailto://alice:hunter@example.com/notify")
    for word in ("session", "agents", "localhost", "notifications", "ntfy.sh", "192.168.1.10", "8080", "v2"):
        assert not looks_like_token(word), word
    for token_like in (TOKEN, "hook-Tq7pushtoken", "topic-Wv3secret", "1234567890123", "AzyoeNSxDiJomQrtUvWx"):
        assert looks_like_token(token_like), token_like
