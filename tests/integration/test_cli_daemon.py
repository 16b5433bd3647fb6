"""The installed command as a person runs it: `acp-tray run` with a real demo agent, signals, history."""

from __future__ import annotations

import json
import shutil
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from acp_tray.demo.agent import DEMO_NOTICES
from acp_tray.files import paths
from acp_tray.presentation.severity import severity_class
from acp_tray.protocol.notice import severity_kind
from tests.support.agents import TS_AGENT, scripted_command
from tests.support.daemons import DaemonProcess, alive, cli_env
from tests.support.repo import ROOT
from tests.support.waiting import until


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM])
def test_run_on_builtin_defaults_shows_demo_notices_in_order(daemons: list[DaemonProcess], sig: int) -> None:
    daemon = DaemonProcess("run", "--headless")
    daemons.append(daemon)
    header = daemon.wait_for_line("acp-tray")
    assert "config.toml (created with the defaults" in header  # first run writes a commented default file
    daemon.wait_for_line("connected")
    titles = [n["title"] for n in DEMO_NOTICES]
    lines = [daemon.wait_for_line(title) for title in titles]
    labels = [line.split()[2] for line in lines]
    assert labels == ["info", "WARNING", "ERROR", "_demo.tip"]  # severities preserved, in order
    assert "1,284 files indexed" in lines[0]  # the description is shown
    agents = daemon.children()
    assert agents, "the demo agent runs as a real child process"
    assert daemon.stop(sig) == 0
    assert not any(alive(pid) for pid in agents), "agents are terminated on shutdown"
    assert "Traceback" not in daemon.stderr_text()

    history = subprocess.run(
        [sys.executable, "-m", "acp_tray", "history", "--json"],
        capture_output=True,
        text=True,
        env=cli_env(),
        check=True,
    )
    records = [json.loads(line) for line in history.stdout.splitlines()]
    assert [r["title"] for r in records] == titles
    for record, sent in zip(records, DEMO_NOTICES, strict=True):
        assert record["kind"] == "notice" and record["agent"] == "demo"
        assert record["severity"] == sent["severity"] and record["description"] == sent["description"]
        assert record["session_id"] == "demo-session-1" and record["time"]
        assert record["reason"] == f'[severity.{severity_class(severity_kind(sent["severity"]))}] route = "both"'
    people = subprocess.run(
        [sys.executable, "-m", "acp_tray", "history"], capture_output=True, text=True, env=cli_env()
    )
    assert "demo  WARNING  Example: Using default settings — No project" in people.stdout.splitlines()[1]


def test_a_restarted_daemon_resumes_the_demo_session_quietly_until_asked(daemons: list[DaemonProcess]) -> None:
    """The second `make run` resumes the demo's session; the demo introduced itself at the first
    (not at every login), and a prompt that asks shows its notices again, in the same session."""
    titles = [n["title"] for n in DEMO_NOTICES]
    for run in ("first", "second"):
        daemon = DaemonProcess("run", "--headless", env=cli_env(ACP_TRAY_DEMO_INTERVAL="0.05"))
        daemons.append(daemon)
        daemon.wait_for_line("demo  connected")
        if run == "second":
            asked = subprocess.run(
                [sys.executable, "-m", "acp_tray", "prompt", "demo", "your notices, please"],
                capture_output=True, text=True, env=cli_env(),
            )  # fmt: skip
            assert asked.returncode == 0, asked.stderr
        for title in titles:
            daemon.wait_for_line(title)
        assert daemon.stop() == 0, run
    records = [
        json.loads(line)
        for line in subprocess.run(
            [sys.executable, "-m", "acp_tray", "history", "--json"], capture_output=True, text=True, env=cli_env()
        ).stdout.splitlines()
    ]
    notices = [r["title"] for r in records if r["title"] in titles]  # not the prompt's turn ("Finished")
    assert notices == titles + titles  # the second series is the one asked for
    assert {r["session_id"] for r in records} == {"demo-session-1"}  # the same session, resumed


def test_demo_agent_with_stdin_from_dev_null_or_stdout_to_a_file(tmp_path: Path) -> None:
    quiet = subprocess.run(
        [sys.executable, "-m", "acp_tray", "demo-agent"],
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        env=cli_env(),
        timeout=30,
    )
    assert (quiet.returncode, quiet.stderr) == (0, "")  # end of input: it ends, quietly
    initialize = {"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {"protocolVersion": 1}}
    out = tmp_path / "out.jsonl"
    with out.open("w") as stdout:
        proc = subprocess.Popen(
            [sys.executable, "-m", "acp_tray", "demo-agent"],
            stdin=subprocess.PIPE,
            stdout=stdout,
            stderr=subprocess.PIPE,
            text=True,
            env=cli_env(),
        )
        assert proc.stdin is not None
        proc.stdin.write(json.dumps(initialize) + "\n")
        proc.stdin.flush()
        until(lambda: out.read_text().endswith("\n"), what="the answer in the file")
        _, stderr = proc.communicate(timeout=30)  # closes its stdin: it ends
    assert (proc.returncode, stderr) == (0, "")
    assert json.loads(out.read_text().splitlines()[0])["result"]["protocolVersion"] == 1


def test_agents_that_exit_during_the_handshake_leave_no_traceback(tmp_path: Path, daemons: list[DaemonProcess]) -> None:
    """The SDK's "Send loop failed" traceback came with most of these (17 in 6 s before the fix)."""
    config = tmp_path / "config.toml"
    true = shutil.which("true")
    config.write_text("".join(f'[agents.gone{n}]\ncommand = ["{true}"]\n' for n in range(6)), encoding="utf-8")
    daemon = DaemonProcess("run", "--headless", "--config", str(config))
    daemons.append(daemon)
    crashed_twice: set[str] = set()  # each agent crashed, was restarted, and crashed again
    while len(crashed_twice) < 6:  # in whatever order the six come
        line = daemon.wait_for_line("WARNING  Crashed — agent closed the connection during the handshake")
        if "Restarting in 2 s" in line:
            crashed_twice.add(line.split()[1])
    assert daemon.stop() == 0
    stderr = daemon.stderr_text()
    assert "Traceback" not in stderr and "Send loop failed" not in stderr, stderr


def test_run_piped_into_a_reader_that_goes_away_stops_cleanly() -> None:
    """`acp-tray run | tee log` and Ctrl+C: tee ends first; the daemon's next lines meet a broken pipe."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "acp_tray", "run", "--headless"],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=cli_env(ACP_TRAY_DEMO_INTERVAL="0.5"),
    )
    try:
        assert proc.stdout is not None and proc.stderr is not None
        while "demo  connected" not in proc.stdout.readline():
            pass
        proc.stdout.close()  # the reader goes; the demo's notices are still to come
        until(lambda: paths.history_file().exists() and len(paths.history_file().read_text().splitlines()) >= 2)
        proc.send_signal(signal.SIGINT)
        assert proc.wait(30) == 0
        stderr = proc.stderr.read()
        assert "Traceback" not in stderr and "BrokenPipeError" not in stderr, stderr
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


def test_malformed_and_valid_notices_through_the_whole_daemon(tmp_path: Path, daemons: list[DaemonProcess]) -> None:
    steps = [
        {"raw": "garbage line"},
        {"update": {"sessionUpdate": "_acme.unknown"}},
        {"update": {"sessionUpdate": "notice", "severity": None, "title": "Malformed one"}},
        {"update": {"sessionUpdate": "notice", "severity": "warning", "title": "Valid one", "description": 42}},
    ]
    config = tmp_path / "config.toml"
    config.write_text(
        "[agents.hostile]\n"
        f"command = {json.dumps(scripted_command())}\n"
        f'cwd = "{tmp_path}"\n'
        f"env = {{ SCRIPTED_AGENT_STEPS = {json.dumps(json.dumps(steps))} }}\n",
        encoding="utf-8",
    )
    daemon = DaemonProcess("run", "--headless", "--config", str(config))
    daemons.append(daemon)
    line = daemon.wait_for_line("Valid one")
    # the wrong-typed description (42) is treated as absent: nothing follows the title
    # (not `"42" not in line`: the time stamp may hold a 42, as it did at 19:33:42)
    assert line.split()[2] == "WARNING" and line.endswith("  WARNING  Valid one")
    assert not any("Malformed one" in seen for seen in daemon.seen)  # never presented
    assert daemon.stop() == 0
    stderr = daemon.stderr_text()
    assert "malformed session/update (update.severity: must be a string, got null" in stderr
    assert "skipped a message from the agent (not JSON" in stderr
    records = [
        json.loads(line)
        for line in subprocess.run(
            [sys.executable, "-m", "acp_tray", "history", "--json"], capture_output=True, text=True, env=cli_env()
        ).stdout.splitlines()
    ]
    assert [(r["kind"], r["title"]) for r in records] == [("malformed", "Malformed one"), ("notice", "Valid one")]
    assert records[0]["reason"] == "must be a string, got null" and records[0]["field"] == "update.severity"


def test_typescript_sdk_agent_notices_reach_the_daemon(tmp_path: Path, daemons: list[DaemonProcess]) -> None:
    if not (ROOT / "tests" / "interop" / "node_modules" / "@agentclientprotocol").is_dir():
        pytest.fail("run `npm ci --prefix tests/interop` first (make test does)")
    config = tmp_path / "config.toml"
    config.write_text(f'[agents.ts]\ncommand = ["node", "{TS_AGENT}"]\n', encoding="utf-8")
    daemon = DaemonProcess("run", "--headless", "--config", str(config))
    daemons.append(daemon)
    lines = [daemon.wait_for_line(t) for t in ("TS interop info", "TS interop warning", "TS interop extension")]
    assert [line.split()[2] for line in lines] == ["info", "WARNING", "_interop.custom"]
    assert "from the TypeScript SDK" in lines[0]
    assert daemon.stop() == 0


@pytest.mark.parametrize(
    ("content", "expected"),
    [
        ("[agents.x\ncommand = ['a']\n", ":1: TOML syntax error"),
        ('[agents.x]\ncommand = ["a"]\ncolour = "red"\n', ":3: unknown key `colour` in [agents.x]; known keys: "),
        ("[agents.x]\ncommand = []\n", ":2: `command` in [agents.x] must not be empty"),
        ('\n\n[agents.x]\ncommand = "a b"\n', ':4: `command` in [agents.x] must be a list, like ["a", "b"], not "a b"'),
    ],
)
def test_bad_preferences_are_reported_with_file_and_line(tmp_path: Path, content: str, expected: str) -> None:
    config = tmp_path / "config.toml"
    config.write_text(content, encoding="utf-8")
    before = config.read_bytes()
    result = subprocess.run(
        [sys.executable, "-m", "acp_tray", "--config", str(config), "run", "--headless"],
        capture_output=True,
        text=True,
        env=cli_env(),
        timeout=30,
    )
    assert result.returncode == 2
    assert f"{config}{expected}" in result.stderr
    assert "Traceback" not in result.stderr
    assert config.read_bytes() == before  # never rewritten


def test_missing_explicit_config_is_an_error_but_missing_default_means_demo(tmp_path: Path) -> None:
    result = subprocess.run(
        [sys.executable, "-m", "acp_tray", "run", "--config", str(tmp_path / "nope.toml")],
        capture_output=True,
        text=True,
        env=cli_env(),
        timeout=30,
    )
    assert result.returncode == 2 and "nope.toml: no such file" in result.stderr


def test_version() -> None:
    result = subprocess.run([sys.executable, "-m", "acp_tray", "--version"], capture_output=True, text=True, check=True)
    from acp_tray import __version__

    assert result.stdout.strip() == f"acp-tray {__version__}"


def test_demo_agent_subcommand_speaks_acp(tmp_path: Path) -> None:
    requests = [
        {"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {"protocolVersion": 1, "clientCapabilities": {}}},
        {"jsonrpc": "2.0", "id": 1, "method": "session/new", "params": {"cwd": str(tmp_path), "mcpServers": []}},
    ]
    stdin = "".join(json.dumps(r) + "\n" for r in requests)
    proc = subprocess.Popen(
        [sys.executable, "-m", "acp_tray", "demo-agent", "--interval", "0"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
        env=cli_env(),
    )
    assert proc.stdin is not None and proc.stdout is not None
    proc.stdin.write(stdin)
    proc.stdin.flush()
    messages = [json.loads(proc.stdout.readline()) for _ in range(2 + len(DEMO_NOTICES))]
    proc.stdin.close()
    assert proc.wait(10) == 0
    assert messages[0]["result"]["protocolVersion"] == 1
    updates = [m["params"]["update"] for m in messages[2:]]
    # no notices capability advertised: the spec's fallback, agent message text
    assert {u["sessionUpdate"] for u in updates} == {"agent_message_chunk"}
    assert "[warning] Example: Using default settings" in updates[1]["content"]["text"]
