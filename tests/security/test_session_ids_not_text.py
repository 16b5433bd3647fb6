"""Session ids from agents and session names from people that are not text (item 3 of the security
review): a remote agent answering `session/new` with a lone surrogate escape ("s-\\ud800-bad", valid
JSON) fails alone, in plain words, and every other agent keeps starting and opening sessions; a
session name that is not UTF-8 (a Latin-1 terminal's argv) is refused in plain words. A real daemon,
a real WebSocket server standing in for the remote agent, the session test agent as a real subprocess
and the real CLI."""

from __future__ import annotations

import contextlib
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from websockets.sync.server import ServerConnection

from acp_tray.files import paths
from tests.support.agents import session_agent_table
from tests.support.config import write_config
from tests.support.daemons import DaemonProcess, cli, cli_env, start
from tests.support.remote_agents import served
from tests.support.repo import ROOT

pytestmark = pytest.mark.usefixtures("no_proxies")

SURROGATE = '"s-\\ud800-bad"'  # JSON text: a lone surrogate escape, which no UTF-8 file can hold
NUL = '"s-\\u0000-bad"'


def initialize_answer(version: int) -> dict[str, Any]:
    if version == 2:
        return {"protocolVersion": 2, "info": {"name": "poisoner"}, "capabilities": {}, "authMethods": []}
    return {"protocolVersion": 1, "agentCapabilities": {}, "authMethods": []}


def poisoning_agent(version: int, poison: str) -> contextlib.AbstractContextManager[str]:
    """A remote ACP agent (`version` 1 or 2) that answers `session/new` with `poison` (JSON text); its ws:// URL."""

    def handle(ws: ServerConnection) -> None:
        for frame in ws:
            message = json.loads(frame)
            if "id" not in message:
                continue
            if message.get("method") == "initialize":
                ws.send(json.dumps({"jsonrpc": "2.0", "id": message["id"], "result": initialize_answer(version)}))
            elif message.get("method") == "session/new":
                ws.send(f'{{"jsonrpc":"2.0","id":{json.dumps(message["id"])},"result":{{"sessionId":{poison}}}}}')
            else:
                ws.send(json.dumps({"jsonrpc": "2.0", "id": message["id"], "error": {"code": -32601, "message": "no"}}))

    return served(handle)


def rows() -> dict[str, dict[str, Any]]:
    listed = cli("agents", "list", "--json")
    assert listed.returncode == 0, listed.stderr
    return {row["name"]: row for row in json.loads(listed.stdout)}


@pytest.mark.parametrize(
    ("version", "poison", "said"),
    [(1, SURROGATE, "is not text: it holds a lone surrogate"), (2, NUL, "holds a NUL character")],
)
def test_a_poisoned_session_id_fails_its_agent_alone(
    daemons: list[DaemonProcess], tmp_path: Path, version: int, poison: str, said: str
) -> None:
    with poisoning_agent(version, poison) as url:
        write_config(
            f'[agents.far]\nurl = "{url}"\nprotocol = {version}\n\n',
            session_agent_table("near", env={"SESSION_AGENT_PROTOCOL": str(version)}, protocol=version),
        )
        daemon = start(daemons, "near")
        daemon.wait_for_lines("  far  FAILED")
        far = rows()["far"]
        assert far["state"] == "failed", far
        assert f"Unusable session id: the agent answered session/new with a sessionId that {said}" in far["detail"]
        assert "internal error" not in far["detail"] and "UnicodeEncodeError" not in far["detail"]

        # every other agent goes on: a new session, an agent started again, a prompt in each
        second = cli("prompt", "near", "--session", "second", "say", "still here")
        assert second.returncode == 0 and second.stdout == "still here \n", second.stderr
        assert cli("agents", "restart", "near").returncode == 0
        daemon.wait_for_line("  near  connected")
        again = cli("prompt", "near", "--session", "third", "say", "and again")
        assert again.returncode == 0 and again.stdout == "and again \n", again.stderr

    kept = json.loads(paths.sessions_file().read_text(encoding="utf-8"))
    assert sorted(s["name"] for s in kept["sessions"]) == ["default", "second", "third"]
    assert all(s["agent"] == "near" for s in kept["sessions"])
    assert daemon.stop() == 0


def test_a_session_name_that_is_not_text_is_refused_in_plain_words(
    daemons: list[DaemonProcess], tmp_path: Path
) -> None:
    write_config(session_agent_table("near"))
    start(daemons, "near")
    latin1 = subprocess.run(  # the bytes a Latin-1 terminal passes for "café": not UTF-8
        [sys.executable, "-m", "acp_tray", "prompt", "near", "--session", b"caf\xe9", "say", "hi"],
        capture_output=True,
        env=cli_env(),
        cwd=ROOT,
        timeout=60,
    )
    said = latin1.stderr.decode("utf-8", "replace")
    assert latin1.returncode == 2 and "the session name must be text" in said, said
    assert "Traceback" not in said and latin1.stdout == b""
    for name in ("caf\udce9", "a\x00b", "s-\ud800"):  # whoever asks the daemon, it refuses the same
        from acp_tray.control.client import ReplyError, request

        with pytest.raises(ReplyError, match="the session name must be text"):
            request("prompt", {"agent": "near", "text": "say hi", "session": name})
    fine = cli("prompt", "near", "--session", "café", "say", "fine")
    assert fine.returncode == 0 and fine.stdout == "fine \n", fine.stderr
    other = cli("prompt", "near", "--session", "next", "say", "next")
    assert other.returncode == 0 and other.stdout == "next \n", other.stderr
