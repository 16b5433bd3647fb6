"""What no process can be started with (a NUL in an argument or a variable, an `=` in a variable's
name) or the preferences file cannot keep (text that is not UTF-8) is refused where it comes in,
in plain words: the preferences file (`prefs validate`, with file:line), the control API's
`agents add`, a registry entry. And a start that fails anyway ends the agent as failed, with the
reason, never left `starting`."""

from __future__ import annotations

import asyncio
import json
import os
import sys
from pathlib import Path

import pytest

from acp_tray.agents.host import AgentHost, AgentSpec
from acp_tray.agents.host_options import HostServices
from acp_tray.agents.supervisor import supervise
from acp_tray.backoff import BackoffPolicy
from acp_tray.events import AgentState, AgentStatus
from acp_tray.files import paths
from tests.support.config import write_config
from tests.support.control_socket import raw_request
from tests.support.daemons import DaemonProcess, cli, cli_env, start
from tests.support.event_log import EventLog
from tests.support.registry_server import RegistryServer, entry, script

# each daemon in a process group of its own (`start(..., own_group=True)`), ended whole after the test
pytestmark = pytest.mark.usefixtures("whole_groups")


def test_prefs_validate_names_the_line_of_a_nul_or_an_equals_sign_and_never_shows_a_value(tmp_path: Path) -> None:
    config = tmp_path / "config.toml"
    config.write_text(
        'notifier = "console"\n\n'
        '[agents.nul]\ncommand = ["/bin/cat", "a\\u0000b"]\n\n'
        '[agents.eq]\ncommand = ["/bin/cat"]\nenv = { "A=B" = "1" }\n\n'
        '[agents.val]\ncommand = ["/bin/cat"]\nenv = { API_KEY = "sk-very\\u0000secret" }\n',
        encoding="utf-8",
    )
    checked = cli("prefs", "validate", "--config", str(config))
    assert checked.returncode != 0, checked.stdout
    lines = checked.stderr.splitlines()
    assert f"{config}:4: `command` in [agents.nul]: argument 1: 'a\\x00b' holds a NUL character" in lines[0]
    assert f"{config}:8: [agents.eq.env]: environment variable name 'A=B' holds '='" in lines[1]
    assert f"{config}:12: [agents.val.env]: the value of API_KEY holds a NUL character" in lines[2]
    assert "secret" not in checked.stderr and "Traceback" not in checked.stderr


def added_agents() -> str:
    return paths.config_file().read_text(encoding="utf-8")


def test_agents_add_refuses_what_no_process_can_be_given_clearly_and_keeps_the_file(
    daemons: list[DaemonProcess],
) -> None:
    daemon = DaemonProcess("run", "--headless")
    daemons.append(daemon)
    daemon.wait_for_line("demo  connected")
    before = added_agents()

    # an argument that is not valid UTF-8 on the command line (bytes the shell passed undecoded)
    odd = cli("agents", "add", "odd", "--", "/bin/cat", os.fsdecode(b"\xff"))
    assert odd.returncode != 0
    assert "argument 1: '\\udcff' is not valid UTF-8 text" in odd.stderr, odd.stderr
    assert "internal error" not in odd.stderr and "Traceback" not in odd.stderr

    # the control API, as any client may call it: a NUL in an argument, in a value, '=' in a name
    def add(command: list[str], env: dict[str, str]) -> dict[str, object]:
        request = {"v": 1, "op": "agents.add", "args": {"name": "sly", "command": command, "env": env}}
        reply: dict[str, object] = json.loads(raw_request(json.dumps(request).encode() + b"\n"))
        return reply

    for command, env, said in (
        (["/bin/cat", "a\0b"], {}, "the agent's command: argument 1: 'a\\x00b' holds a NUL character"),
        (["/bin/cat"], {"TOKEN": "se\0cret"}, "its env: the value of TOKEN holds a NUL character"),
        (["/bin/cat"], {"A=B": "1"}, "its env: environment variable name 'A=B' holds '='"),
    ):
        reply = add(command, env)
        assert reply["ok"] is False and reply["code"] == "bad_request", reply
        assert str(reply["error"]).startswith(said), reply
    assert added_agents() == before  # nothing written
    assert daemon.stop() == 0
    assert "Traceback" not in daemon.stderr_text() and "never retrieved" not in daemon.stderr_text()


@pytest.mark.parametrize(
    ("distribution", "said"),
    [
        ({"args": ["--acp", "a\0b"]}, "npx.args: argument 2: 'a\\x00b' holds a NUL character"),
        ({"env": {"A=B": "1"}}, "npx: environment variable name 'A=B' holds '='"),
    ],
)
def test_a_registry_entry_no_process_can_be_given_is_skipped_with_its_reason_at_once(
    server: RegistryServer,
    daemons: list[DaemonProcess],
    tmp_path: Path,
    distribution: dict[str, object],
    said: str,
) -> None:
    package = {"package": "sly-agent", **distribution}
    document = {"version": "1.0.0", "agents": [entry("sly-agent", "1.0.0", {"npx": package})], "extensions": []}
    server.files["/registry.json"] = json.dumps(document).encode()  # a registry that does not check
    config = write_config(registry=server.url("/registry.json"))
    fake = tmp_path / "bin" / "npx"  # an npx that runs a real ACP agent
    fake.parent.mkdir()
    fake.write_bytes(script(f"exec {sys.executable} -m acp_tray demo-agent"))
    fake.chmod(0o755)
    path = f"{fake.parent}:{os.environ['PATH']}"
    start(daemons, own_group=True, env={"PATH": path})
    added = cli("agents", "add", "sly-agent", env=cli_env(PATH=path), timeout=30)
    assert added.returncode != 0
    assert "the registry's entry for agent sly-agent:" in added.stderr and "; skipped" in added.stderr
    assert said in added.stderr, added.stderr
    assert "Traceback" not in added.stderr and "[agents.sly-agent]" not in config.read_text()


async def test_a_start_that_raises_ends_failed_with_its_reason_not_starting(tmp_path: Path) -> None:
    """Whatever way a NUL got past the entry points, the spawn's ValueError is a failure."""
    log = EventLog()
    host = AgentHost("nul", AgentSpec(["/bin/cat", "a\0b"], cwd=tmp_path), log)
    task = asyncio.create_task(supervise(host, log, BackoffPolicy(initial=0.05)))
    await asyncio.wait_for(task, 10)  # supervision ends (no restart of what cannot start), without an exception
    last = log.of(AgentStatus)[-1]
    assert last.state is AgentState.FAILED and last.detail == "cannot start '/bin/cat': embedded null byte"


async def test_an_exception_while_starting_is_reported_as_failed_not_left_to_a_task(tmp_path: Path) -> None:
    """The OS keyring answering with an error it should not (a broken backend) is no agent fault."""

    def broken_keyring(agent: str) -> dict[str, str]:
        raise RuntimeError("the keyring backend broke")

    log = EventLog()
    host = AgentHost("k", AgentSpec(["/bin/cat"], cwd=tmp_path), log, services=HostServices(secrets=broken_keyring))
    task = asyncio.create_task(supervise(host, log, BackoffPolicy(initial=0.05)))
    await asyncio.wait_for(task, 10)
    last = log.of(AgentStatus)[-1]
    assert last.state is AgentState.FAILED
    assert last.detail == "internal error: RuntimeError: the keyring backend broke"
