"""The control socket and the CLI against a real daemon hosting real agent subprocesses.

Each test starts `acp-tray run --headless` with its own preferences file, runs `acp-tray ...`
commands as a person would, and checks what they print, their exit codes, what the agents
received (their logs) and the history.
"""

from __future__ import annotations

import json
import os
import signal
import stat
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from acp_tray.control.endpoint import socket_path
from acp_tray.files import paths
from tests.support.agents import SESSION_AGENT, received, session_agent_table
from tests.support.config import history, titles, write_config
from tests.support.daemons import DaemonProcess, cli, cli_env, cli_started, start
from tests.support.waiting import until

# no daemon, and a private endpoint ------------------------------------------------------------


@pytest.mark.parametrize(
    "command", [["status"], ["prompt", "demo", "hi"], ["approve", "1"], ["agents", "list"], ["quit"]]
)
def test_cli_without_a_daemon_says_so_in_one_line(command: list[str]) -> None:
    result = cli(*command)
    assert result.returncode == 3
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and "acp-tray is not running" in lines[0] and "acp-tray run" in lines[0]
    assert result.stdout == ""


def test_the_control_socket_is_private_and_answers_status(daemons: list[DaemonProcess], tmp_path: Path) -> None:
    write_config(session_agent_table("sa", tmp_path / "sa.log"))
    daemon = start(daemons, "sa")
    sock = socket_path()
    assert stat.S_IMODE(sock.stat().st_mode) == 0o600 and stat.S_ISSOCK(sock.stat().st_mode)
    assert stat.S_IMODE(sock.parent.stat().st_mode) == 0o700 and sock.parent.stat().st_uid == os.getuid()
    result = cli("status", "--json")
    assert result.returncode == 0, result.stderr
    status = json.loads(result.stdout)
    assert status["pid"] == daemon.proc.pid
    assert [(a["name"], a["state"], a["sessions"]) for a in status["agents"]] == [("sa", "connected", 1)]
    human = cli("status").stdout
    assert "agents: 1 (1 connected)" in human and "sa" in human
    assert cli("quit").returncode == 0
    assert daemon.proc.wait(15) == 0
    assert not sock.exists()  # removed on the way out


@pytest.mark.parametrize("problem", ["world-writable", "another-user"])
def test_a_runtime_directory_that_is_not_private_is_refused(problem: str, tmp_path: Path) -> None:
    if problem == "another-user" and os.geteuid() != 0:
        pytest.skip("needs root to give a directory to another user")
    write_config(session_agent_table("sa", tmp_path / "sa.log"))
    directory = socket_path().parent
    directory.mkdir(parents=True)
    if problem == "world-writable":
        directory.chmod(0o777)
        expected = "can be written by others"
    else:
        os.chown(directory, 65534, 65534)
        expected = "belongs to user id 65534"
    result = subprocess.run(
        [sys.executable, "-m", "acp_tray", "run", "--headless"],
        capture_output=True,
        text=True,
        env=cli_env(),
        timeout=30,
    )
    assert result.returncode == 1
    assert "not starting" in result.stderr and expected in result.stderr
    assert not (tmp_path / "sa.log").exists()  # no agent was started
    assert not socket_path().exists()


def test_a_socket_left_by_a_killed_daemon_is_replaced(daemons: list[DaemonProcess], tmp_path: Path) -> None:
    write_config(session_agent_table("sa", tmp_path / "sa.log"))
    first = start(daemons, "sa")
    first.proc.kill()
    first.proc.wait()
    assert socket_path().exists()  # left behind
    start(daemons, "sa")
    assert cli("status").returncode == 0


# sessions and prompts -----------------------------------------------------------------------


def test_two_agents_three_named_sessions_and_queued_prompts_in_order(
    daemons: list[DaemonProcess], tmp_path: Path
) -> None:
    log_a, log_b = tmp_path / "a.log", tmp_path / "b.log"
    write_config(session_agent_table("alpha", log_a) + session_agent_table("beta", log_b))
    start(daemons, "alpha", "beta")
    one = cli("prompt", "alpha", "say", "hello", "there")
    assert one.returncode == 0, one.stderr
    assert one.stdout == "hello there \n"  # the reply, streamed as it came
    review = cli("prompt", "alpha", "--session", "review", "say", "second", "session")
    assert review.returncode == 0 and review.stdout == "second session \n"
    other_dir = tmp_path / "elsewhere"
    other_dir.mkdir()
    beta = cli("prompt", "beta", "--session", "build", "--cwd", str(other_dir), "say", "third")
    assert beta.returncode == 0 and beta.stdout == "third \n"
    # three prompts queued at once into one session run one at a time, in order
    release = tmp_path / "release"  # the first turn runs until the test has seen the other two queued
    first = f"hold {release}"
    for text in (first, "say b", "say c"):
        queued = cli("prompt", "alpha", "--session", "queue", "--no-wait", *text.split())
        assert queued.returncode == 0 and "queued as prompt" in queued.stdout
    sessions = json.loads(cli("sessions", "--json").stdout)
    busy = next(s for s in sessions if s["agent"] == "alpha" and s["name"] == "queue")
    assert busy["state"] == "running" and busy["queued"] == 2
    release.touch()

    def queue_done() -> bool:
        rows = json.loads(cli("sessions", "--json").stdout)
        row = next(s for s in rows if s["agent"] == "alpha" and s["name"] == "queue")
        return bool(row["state"] == "idle" and row["turns"] == 3)

    until(queue_done, what="the queued prompts")
    queue_id = busy["session_id"]
    texts = [p["prompt"][0]["text"] for p in received(log_a, "session/prompt") if p["sessionId"] == queue_id]
    assert texts == [first, "say b", "say c"]
    sessions = json.loads(cli("sessions", "--json").stdout)
    keys = {(s["agent"], s["name"], s["cwd"]) for s in sessions}
    home = str(Path.home())
    assert {("alpha", "default", home), ("alpha", "review", home), ("beta", "build", str(other_dir))} <= keys
    assert len({s["session_id"] for s in sessions}) == len(sessions)  # each its own ACP session
    assert received(log_b, "session/new")[-1]["cwd"] == str(other_dir)


def test_ctrl_c_cancels_the_turn_and_nothing_is_notified(daemons: list[DaemonProcess], tmp_path: Path) -> None:
    log = tmp_path / "sa.log"
    write_config(session_agent_table("sa", log))
    start(daemons, "sa")
    prompt = cli_started("prompt", "sa", "slow", "20")
    assert prompt.stdout is not None
    assert prompt.stdout.read(5) == "tick "  # the turn is running
    prompt.send_signal(signal.SIGINT)
    _, err = prompt.communicate(timeout=15)
    assert prompt.returncode == 130, err
    assert "cancelling" in err and "the turn ended: cancelled" in err
    assert len(received(log, "session/cancel")) == 1
    assert cli("prompt", "sa", "say", "after").stdout == "after \n"  # the session goes on
    until(lambda: "sa: Finished" in titles(), what="the next turn's notice")
    assert titles().count("sa: Finished") == 1  # only the turn that was not cancelled


def test_cancel_command_stops_the_running_turn(daemons: list[DaemonProcess], tmp_path: Path) -> None:
    log = tmp_path / "sa.log"
    write_config(session_agent_table("sa", log))
    start(daemons, "sa")
    cli("prompt", "sa", "--session", "long", "--no-wait", "slow", "20")
    until(lambda: received(log, "session/prompt"), what="the prompt")
    assert cli("cancel", "sa").stdout.strip() == "nothing was running"  # the default session is idle
    result = cli("cancel", "sa", "--session", "long")
    assert result.returncode == 0 and "cancelling" in result.stdout
    until(lambda: received(log, "session/cancel"), what="session/cancel")


def test_turn_endings_become_notices_by_stop_reason(daemons: list[DaemonProcess], tmp_path: Path) -> None:
    write_config(session_agent_table("sa", tmp_path / "sa.log"))
    start(daemons, "sa")
    assert cli("prompt", "sa", "say", "ok").returncode == 0
    assert cli("prompt", "sa", "stop", "max_tokens").returncode == 4
    assert cli("prompt", "sa", "stop", "refusal").returncode == 6
    failed = cli("prompt", "sa", "fail")
    assert failed.returncode == 1 and "the prompt failed" in failed.stderr and "model is unavailable" in failed.stderr
    assert cli("prompt", "sa", "stop", "cancelled").returncode == 130
    until(lambda: len(titles()) >= 4, what="four notices")
    time.sleep(0.3)
    records = [r for r in history() if r["source"] == "acp-tray"]
    assert [(r["severity"], f"{r['agent']}: {r['title']}") for r in records] == [
        ("info", "sa: Finished"),
        ("warning", "sa: Stopped: token limit reached"),
        ("warning", "sa: Refused to continue"),
        ("error", "sa: Prompt failed"),
    ]
    assert "model is unavailable" in records[3]["description"]


# approvals and input --------------------------------------------------------------------------


def _pending(agent: str) -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = json.loads(cli("approvals", "--json").stdout)
    return [r for r in rows if r["agent"] == agent]


def test_permission_answered_from_the_cli_and_another_timing_out(daemons: list[DaemonProcess], tmp_path: Path) -> None:
    write_config(
        session_agent_table("sa", tmp_path / "sa.log")
        + session_agent_table("slowpoke", tmp_path / "slow.log", permission_timeout=0.5)
    )
    start(daemons, "sa", "slowpoke")
    waiting = cli_started("prompt", "sa", "ask")
    (request,) = until(lambda: _pending("sa"), what="the approval request")
    assert request["title"] == "Delete build/"
    assert [o["kind"] for o in request["options"]] == ["allow_once", "reject_once", "_odd_kind"]
    human = cli("status").stdout
    assert "waiting for your approval: 1" in human and "Delete build/" in human
    bad = cli("approve", request["id"], "nonsense")
    assert bad.returncode == 1 and "no option 'nonsense'" in bad.stderr
    ok = cli("approve", request["id"])  # the only allow option
    assert ok.returncode == 0 and "answered allow" in ok.stdout
    out, err = waiting.communicate(timeout=20)
    assert waiting.returncode == 0 and out == "outcome=allow\n", err
    again = cli("approve", request["id"])
    assert again.returncode == 1 and "no pending request" in again.stderr

    # a deny answers with the agent's reject option
    denied = subprocess.Popen(
        [sys.executable, "-m", "acp_tray", "prompt", "sa", "ask"], stdout=subprocess.PIPE, text=True, env=cli_env()
    )
    (request,) = until(lambda: _pending("sa"), what="the second request")
    assert cli("deny", request["id"]).returncode == 0
    assert denied.communicate(timeout=20)[0] == "outcome=reject\n"

    # nobody answers: cancelled after the agent's permission_timeout, and the person is told
    late = cli("prompt", "slowpoke", "ask")
    assert late.returncode == 0 and late.stdout == "outcome=cancelled\n"
    until(lambda: "slowpoke: Approval timed out" in titles(), what="the timeout notice")
    assert "sa: Needs approval" in titles() and "slowpoke: Needs approval" in titles()


def test_reject_and_allow_policies_answer_without_asking(daemons: list[DaemonProcess], tmp_path: Path) -> None:
    write_config(
        session_agent_table("strict", tmp_path / "s.log", permission="reject")
        + session_agent_table("trusting", tmp_path / "t.log", permission="allow")
    )
    start(daemons, "strict", "trusting")
    assert cli("prompt", "strict", "ask").stdout == "outcome=reject\n"
    assert cli("prompt", "trusting", "ask").stdout == "outcome=allow\n"
    assert not any("Needs approval" in t for t in titles())


def test_a_question_in_a_way_acp_tray_cannot_show_is_declined_and_the_person_told(
    daemons: list[DaemonProcess], tmp_path: Path
) -> None:
    write_config(session_agent_table("sa", tmp_path / "sa.log"))
    start(daemons, "sa")
    assert cli("prompt", "sa", "elicit-odd").stdout == "elicitation=decline\n"
    until(lambda: "sa: Asked for input" in titles(), what="the input notice")
    record = next(r for r in history() if r["agent"] == "sa" and r["title"] == "Asked for input")
    assert record["severity"] == "warning" and "Which branch?" in record["description"]
    assert "It was declined: it asked in a way acp-tray does not know (mode '_acme.wizard')" in record["description"]


def test_a_question_is_answered_by_command(daemons: list[DaemonProcess], tmp_path: Path) -> None:
    write_config(session_agent_table("sa", tmp_path / "sa.log"))
    start(daemons, "sa")
    prompt = cli_started("prompt", "sa", "elicit")
    (question,) = until(lambda: json.loads(cli("questions", "--json").stdout), what="the question")
    assert question["message"] == "Which branch?" and question["fields"][0]["name"] == "branch"
    assert "questions waiting for you: 1" in cli("status").stdout
    assert cli("answer", question["id"], "branch=main").returncode == 0
    out, _ = prompt.communicate(timeout=30)
    assert out == 'elicitation=accept {"branch": "main"}\n'


# crashes, restarts, reattach -----------------------------------------------------------------


def test_a_crash_mid_turn_is_reported_and_the_agent_restarted(daemons: list[DaemonProcess], tmp_path: Path) -> None:
    log = tmp_path / "sa.log"
    write_config(session_agent_table("sa", log))
    daemon = start(daemons, "sa")
    crashed = cli("prompt", "sa", "crash")
    assert crashed.returncode == 1 and "closed the connection" in crashed.stderr
    daemon.wait_for_line("  sa  WARNING  Crashed")
    daemon.wait_for_line("  sa  connected")  # restarted by itself
    assert cli("prompt", "sa", "say", "back").stdout == "back \n"
    records = {f"{r['agent']}: {r['title']}": r for r in history() if r["source"] == "acp-tray"}
    assert "exit code 3" in records["sa: Crashed"]["description"]
    assert "crashing on request" in records["sa: Crashed"]["description"]  # its last stderr line
    assert records["sa: Crashed"]["severity"] == "warning"
    assert records["sa: Started a new session"]["severity"] == "info"  # it cannot load or resume


def test_sessions_are_reattached_after_a_daemon_restart(daemons: list[DaemonProcess], tmp_path: Path) -> None:
    logs = {name: tmp_path / f"{name}.log" for name in ("loader", "resumer", "plain")}
    write_config(
        session_agent_table("loader", logs["loader"], env={"SESSION_AGENT_LOAD": "1"})
        + session_agent_table("resumer", logs["resumer"], env={"SESSION_AGENT_RESUME": "1"})
        + session_agent_table("plain", logs["plain"])
    )
    first = start(daemons, *logs)
    ids = {}
    for name in logs:
        assert cli("prompt", name, "--session", "work", "say", "hi").returncode == 0
        rows = json.loads(cli("sessions", "--json").stdout)
        ids[name] = next(r["session_id"] for r in rows if r["agent"] == name and r["name"] == "work")
    assert cli("quit").returncode == 0
    assert first.proc.wait(15) == 0
    start(daemons, *logs)
    for name in logs:
        assert cli("prompt", name, "--session", "work", "say", "again").returncode == 0
    assert [p["sessionId"] for p in received(logs["loader"], "session/load")][-1] == ids["loader"]
    assert [p["sessionId"] for p in received(logs["resumer"], "session/resume")][-1] == ids["resumer"]
    assert received(logs["plain"], "session/load") == received(logs["plain"], "session/resume") == []
    rows = json.loads(cli("sessions", "--json").stdout)
    now = {r["agent"]: r["session_id"] for r in rows if r["name"] == "work"}
    assert now["loader"] == ids["loader"] and now["resumer"] == ids["resumer"] and now["plain"] != ids["plain"]
    assert "plain: Started a new session" in titles()
    assert not any(t.startswith(("loader: Started", "resumer: Started")) for t in titles())
    # a notice replayed by session/load is presented as a live event
    replayed = [r for r in history() if r["title"] == "Replayed notice"]
    assert replayed and replayed[-1]["agent"] == "loader" and replayed[-1]["source"] == "agent"


# agents from the CLI -------------------------------------------------------------------------


def test_agents_add_and_remove_edit_the_file_and_keep_its_comments(
    daemons: list[DaemonProcess], tmp_path: Path
) -> None:
    config = write_config(session_agent_table("sa", tmp_path / "sa.log"))
    daemon = start(daemons, "sa")
    added = cli("agents", "add", "extra", "--", sys.executable, str(SESSION_AGENT))
    assert added.returncode == 0, added.stderr
    assert "# a comment the person wrote" in config.read_text()
    daemon.wait_for_line("  extra  connected")
    assert cli("prompt", "extra", "say", "new").stdout == "new \n"
    duplicate = cli("agents", "add", "extra", "--url", "ws://127.0.0.1:9")
    assert duplicate.returncode == 1 and "already configured" in duplicate.stderr
    rows = json.loads(cli("agents", "list", "--json").stdout)
    assert [(r["name"], r["kind"]) for r in rows] == [("sa", "local"), ("extra", "local")]
    assert cli("agents", "remove", "extra").returncode == 0
    text = config.read_text()
    assert "[agents.extra]" not in text and "[agents.sa]" in text and "# a comment the person wrote" in text
    missing = cli("agents", "restart", "nobody")
    assert missing.returncode == 1 and "no agent called 'nobody'" in missing.stderr


def test_agents_add_refuses_a_name_a_shell_or_toml_would_trip_on(daemons: list[DaemonProcess], tmp_path: Path) -> None:
    from acp_tray.control.client import ReplyError, request

    config = write_config(session_agent_table("sa", tmp_path / "sa.log"))
    start(daemons, "sa")
    before = config.read_text()
    refused = cli("agents", "add", "bad name!", "--", sys.executable, str(SESSION_AGENT))
    assert refused.returncode == 2 and refused.stdout == ""
    assert "agent name 'bad name!' is not allowed: use letters A-Z and a-z, digits, '-', '_' and '.'" in refused.stderr
    with pytest.raises(ReplyError, match="is not allowed"):  # the daemon checks too, whoever asks
        request("agents.add", {"name": "-rf", "command": [sys.executable, str(SESSION_AGENT)]})
    assert config.read_text() == before  # nothing written
    assert [r["name"] for r in json.loads(cli("agents", "list", "--json").stdout)] == ["sa"]


def test_a_preferences_file_with_a_bad_agent_name_is_reported(tmp_path: Path) -> None:
    bad = tmp_path / "bad.toml"
    bad.write_text('[agents."my agent"]\ncommand = ["x"]\n', encoding="utf-8")
    result = cli("prefs", "validate", str(bad))
    assert result.returncode == 1 and "agent name 'my agent' is not allowed" in result.stderr


# remote agents -------------------------------------------------------------------------------


def _listen(port: int = 0) -> tuple[subprocess.Popen[str], int]:
    env = {k: v for k, v in cli_env(ACP_TRAY_DEMO_INTERVAL="0.05").items() if not k.lower().endswith("_proxy")}
    server = subprocess.Popen(
        [sys.executable, "-m", "acp_tray", "demo-agent", "--listen", f"127.0.0.1:{port}"],
        stdout=subprocess.PIPE,
        text=True,
        env=env,
    )
    assert server.stdout is not None
    line = server.stdout.readline()
    assert line.startswith("listening on ws://127.0.0.1:"), line
    return server, int(line.rsplit(":", 1)[1])


def test_a_remote_agent_over_websocket_is_hosted_and_reconnected(daemons: list[DaemonProcess]) -> None:
    server, port = _listen()
    try:
        write_config(f'[agents.far]\nurl = "ws://127.0.0.1:{port}"\nheaders = {{ X-Token = "${{FAR_TOKEN}}" }}\n')
        env = {k: v for k, v in cli_env(ACP_TRAY_DEMO_INTERVAL="0.05", FAR_TOKEN="s3cret").items()}
        env = {k: v for k, v in env.items() if not k.lower().endswith("_proxy")}
        daemon = DaemonProcess("run", "--headless", env=env)
        daemons.append(daemon)
        daemon.wait_for_line("  far  connected")
        daemon.wait_for_line("Extension severities are shown generically")  # the demo's notices arrive
        reply = cli("prompt", "far", "hello")
        assert reply.returncode == 0 and "Hello from the acp-tray demo agent" in reply.stdout
        server.kill()
        server.wait()
        daemon.wait_for_line("  far  WARNING  Crashed")
        server, _ = _listen(port)  # the server comes back: acp-tray reconnects by itself
        daemon.wait_for_line("  far  connected", timeout=30)
    finally:
        server.kill()
        server.wait()
    assert cli("quit").returncode == 0
    daemon.proc.wait(15)
    everything = paths.history_file().read_text() + "\n".join(daemon.seen) + daemon.stderr_text()
    assert "s3cret" not in everything  # a header value is never written anywhere
