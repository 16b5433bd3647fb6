"""Answering from the phone: a real headless daemon pushes an approval through real Apprise to a
stand-in of ntfy (tests/support/ntfy_stand_in.py) with buttons, follows the reply topic, and a
"phone" presses a button by sending exactly what ntfy's app sends. A real press answers the
agent's request once; replays, presses too late or for a request answered at the desk, forged or
altered tokens and a flood of junk answer nothing; the phone is told what came of each real press.
The key, the reply topic and the tokens show nowhere: log, history, status, a command line."""

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
from tests.support.daemons import DaemonProcess, cli, cli_env, rss_kib
from tests.support.ntfy_stand_in import NtfyStandIn, Phone, ntfy_stand_in
from tests.support.push_cli import add, command_lines
from tests.support.waiting import until

TOPIC = "phone-Wv3secret"  # the push topic
SESSION = "scripted-1"
OPTIONS = [
    {"optionId": "yes", "name": "Allow", "kind": "allow_once"},
    {"optionId": "always", "name": "Always", "kind": "allow_always"},
    {"optionId": "no", "name": "Deny", "kind": "reject_once"},
]


@pytest.fixture
def ntfy() -> Iterator[NtfyStandIn]:
    with ntfy_stand_in() as running:
        yield running


def permission(title: str) -> dict[str, Any]:
    return {
        "request": "session/request_permission",
        "params": {"sessionId": SESSION, "toolCall": {"toolCallId": title, "title": title}, "options": OPTIONS},
    }


def go(tmp_path: Path, name: str) -> dict[str, Any]:
    return {"wait_file": str(tmp_path / name)}


def configure(tmp_path: Path, steps: list[dict[str, Any]], *, timeout: int = 300, push: str = "") -> Path:
    table = (
        "[agents.bot]\n"
        f"command = {json.dumps(scripted_command())}\n"
        f"permission_timeout = {timeout}\n"
        f"env = {{ SCRIPTED_AGENT_STEPS = {json.dumps(json.dumps(steps))}, "
        f"SCRIPTED_AGENT_LOG = {json.dumps(str(tmp_path / 'agent.log'))} }}\n"
    )
    return write_config(f'[push]\nwhen = "always"\nanswers = true\n{push}\n', table)


def run(env: dict[str, str]) -> DaemonProcess:
    daemon = DaemonProcess("-vvv", "run", "--headless", env=env)
    daemon.wait_for_line("control: ")
    daemon.wait_for_lines("  bot  connected")
    return daemon


def answers_sent(tmp_path: Path) -> list[str]:
    """The options the agent received, in order ("cancelled" for a cancelled request)."""
    log = tmp_path / "agent.log"
    lines = log.read_text(encoding="utf-8").splitlines() if log.exists() else []
    outcomes = [json.loads(line)["response"]["result"]["outcome"] for line in lines if '"response"' in line]
    return [o.get("optionId", o["outcome"]) for o in outcomes]


def asks(ntfy: NtfyStandIn) -> list[dict[str, Any]]:
    """The pushes with buttons, in order."""
    return [m for m in ntfy.on(TOPIC) if m.get("actions")]


def said(ntfy: NtfyStandIn) -> list[str]:
    """What the phone was told after its presses (the pushes without buttons after the first ask)."""
    return [m["title"] for m in ntfy.on(TOPIC) if not m.get("actions") and "Needs approval" not in m["title"]]


def pending() -> list[str]:
    return [row["id"] for row in json.loads(cli("approvals", "--json").stdout)]


def reply_topic(message: dict[str, Any]) -> str:
    return str(message["actions"][0]["url"]).rsplit("/", 1)[1]


def asked(
    tmp_path: Path, ntfy: NtfyStandIn, env: dict[str, str], daemons: list[DaemonProcess]
) -> tuple[DaemonProcess, dict[str, Any]]:
    """The daemon started, target "phone" added, the agent let go: its first approval's push."""
    daemon = run(env)
    daemons.append(daemon)
    add("phone", f"ntfy://127.0.0.1:{ntfy.port}/{TOPIC}", env)
    (tmp_path / "go").touch()
    (ask,) = until(lambda: asks(ntfy), 30, "the approval's push with its buttons")
    return daemon, ask


def test_a_press_answers_once_and_nothing_else_on_the_topic_answers(
    tmp_path: Path, ntfy: NtfyStandIn, keyring_env: dict[str, str], daemons: list[DaemonProcess]
) -> None:
    configure(tmp_path, [go(tmp_path, "go"), permission("Run rm -rf build"), permission("Push to main")])
    env = cli_env(**keyring_env)
    daemon, ask = asked(tmp_path, ntfy, env, daemons)
    assert ask["title"] == "bot: Needs approval"
    assert ask["message"].startswith("It wants: Run rm -rf build\nAnswer with a button below, or at the desk")
    assert [a["label"] for a in ask["actions"]] == ["Allow once", "Reject"]  # "Always": not unless allowed
    topic = reply_topic(ask)
    assert len(topic) >= 40 and topic != TOPIC
    until(lambda: ntfy.streams_open(topic) >= 1, 30, "the daemon following the reply topic")
    phone = Phone()
    allow = ask["actions"][0]

    # forged, altered, junk: answer nothing, tell nothing
    forged = {**allow, "body": allow["body"][:-2] + ("AA" if not allow["body"].endswith("AA") else "BB")}
    other = {**allow, "body": allow["body"].replace(".0.", ".1.", 1)}  # the Allow token made Reject's
    later = {**allow, "body": allow["body"].replace(allow["body"].split(".")[3], "9999999999", 1)}
    for action in (forged, other, later):
        assert phone.send(action) == 200
    before = rss_kib(daemon.proc.pid)
    cpu_before = _cpu_seconds(daemon.proc.pid)
    for n in range(1000):
        ntfy.publish(topic, f"junk {n} " + "x" * (n % 300))
    assert phone.send({"action": "http", "url": allow["url"], "body": "after the flood"}) == 200
    until(lambda: _log_mentions("after the flood") or _ignored() >= 1004, 60, "the flood read")
    assert pending() == ["1"] and answers_sent(tmp_path) == [] and said(ntfy) == []
    assert rss_kib(daemon.proc.pid) - before < 20_000  # bounded memory: no per-message state kept
    assert _cpu_seconds(daemon.proc.pid) - cpu_before < 20  # bounded work (CPU seconds, not wall time)

    # the real press: the agent gets "yes"; the phone is told
    assert phone.press(ask, "Allow once") == 200
    until(lambda: answers_sent(tmp_path) == ["yes"], 30, "the answer at the agent")
    until(lambda: said(ntfy) == ["Allowed"], 30, "the phone told")
    # replayed, or the other button of an answered request: told once each, never answered again
    assert phone.press(ask, "Allow once") == 200
    assert phone.press(ask, "Reject") == 200
    assert phone.press(ask, "Allow once") == 200
    until(lambda: len(said(ntfy)) == 3, 30, "the late presses told")
    assert said(ntfy) == ["Allowed", "Already answered from the phone", "Already answered from the phone"]

    # the second request, answered at the desk first: its press is told so and answers nothing
    (_, second) = until(lambda: asks(ntfy)[1:] and asks(ntfy), 30, "the second approval's push")
    assert cli("approve", "2", "no").returncode == 0
    until(lambda: answers_sent(tmp_path) == ["yes", "no"], 30, "the desk's answer")
    assert phone.press(second, "Allow once") == 200
    until(lambda: len(said(ntfy)) == 4, 30, "the press told it came late")
    assert said(ntfy)[-1] == "Already answered at the desk" and answers_sent(tmp_path) == ["yes", "no"]

    records = [r for r in history() if r["title"] == "Answered from the phone"]
    assert [r["description"] for r in records] == ["Request 1 was answered 'yes' from the phone (target phone)."]
    key = _keyring(env, "push-answers/key")
    tokens = [a["body"] for m in asks(ntfy) for a in m["actions"]]
    shown = {
        "history": paths.history_file().read_text(encoding="utf-8"),
        "status --json": cli("status", "--json", env=env).stdout,
        "approvals --json": cli("approvals", "--json", env=env).stdout,
        "push list": cli("push", "list", env=env).stdout,
        "cmdlines": "\n".join(command_lines()),
        "state dir": "".join(p.read_text(errors="replace") for p in paths.state_dir().glob("*") if p.is_file()),
    }
    assert "phone  ntfy  answered from the phone" in shown["push list"]
    assert daemon.stop() == 0
    shown["log"] = "\n".join(_log())
    shown["console"] = "\n".join(daemon.seen) + daemon.stderr_text()
    for where, text in shown.items():
        for secret in (key, topic, TOPIC, *tokens, *(t.rsplit(".", 1)[1] for t in tokens)):
            assert secret not in text, f"a secret is in {where}"


def _log() -> list[str]:
    return [p.read_text(errors="replace") for p in paths.log_file().parent.glob("*.log*")]


def _log_mentions(text: str) -> bool:
    return any(text in part for part in _log())


def _ignored() -> int:
    return "\n".join(_log()).count("is not a press of a button of ours")


def _keyring(env: dict[str, str], entry: str) -> str:
    code = f"import keyring; print(keyring.get_password('acp-tray', {entry!r}))"
    return subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True
    ).stdout.strip()


def _cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    import os

    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def test_a_press_made_while_the_stream_is_down_answers_once_it_is_back(
    tmp_path: Path, ntfy: NtfyStandIn, keyring_env: dict[str, str], daemons: list[DaemonProcess]
) -> None:
    configure(tmp_path, [go(tmp_path, "go"), permission("Run rm -rf build")])
    env = cli_env(**keyring_env)
    daemon, ask = asked(tmp_path, ntfy, env, daemons)
    topic = reply_topic(ask)
    until(lambda: ntfy.streams_open(topic) == 1, 30, "the daemon following the reply topic")
    ntfy.refusing = True  # the server goes away: it ends the stream and refuses new ones for a while
    ntfy.end_streams()
    until(lambda: ntfy.streams_open(topic) >= 3, 30, "the daemon trying again (and refused)")
    assert Phone().press(ask, "Reject") == 200  # while the daemon is not following
    ntfy.refusing = False
    until(lambda: answers_sent(tmp_path) == ["no"], 60, "the press answered once the stream is back")
    until(lambda: said(ntfy) == ["Rejected"], 30, "the phone told")
    log = "\n".join(_log())
    assert "the server ended the stream; following them again in 1 s" in log
    assert "the server answered 503" in log and "following them again in 2 s" in log  # backing off
    assert pending() == [] and daemon.stop() == 0


def test_a_press_after_the_expiry_or_from_before_a_restart_answers_nothing_and_says_why(
    tmp_path: Path, ntfy: NtfyStandIn, keyring_env: dict[str, str], daemons: list[DaemonProcess]
) -> None:
    configure(tmp_path, [go(tmp_path, "go"), permission("Run rm -rf build")], timeout=3)
    env = cli_env(**keyring_env)
    daemon = run(env)
    daemons.append(daemon)
    add("phone", f"ntfy://127.0.0.1:{ntfy.port}/{TOPIC}", env)
    (tmp_path / "go").touch()
    (first,) = until(lambda: asks(ntfy), 30, "the approval's push with its buttons")
    until(lambda: answers_sent(tmp_path) == ["cancelled"], 30, "the request cancelled at its expiry")
    assert Phone().press(first, "Allow once") == 200
    until(lambda: said(ntfy), 30, "the phone told it came too late")
    assert said(ntfy) == ["Expired: nobody answered in time, so it was cancelled"]
    assert answers_sent(tmp_path) == ["cancelled"]
    assert daemon.stop() == 0

    # restarted: the agent asks again, and request "1" is a new one; the old button answers nothing
    configure(tmp_path, [permission("Run rm -rf build")])
    (tmp_path / "agent.log").unlink()
    daemon = run(env)
    daemons.append(daemon)
    (_, second) = until(lambda: asks(ntfy)[1:] and asks(ntfy), 30, "the new request's push")
    assert pending() == ["1"] and first["actions"][0]["body"] != second["actions"][0]["body"]
    until(lambda: ntfy.streams_open(reply_topic(second)) >= 2, 30, "the new daemon following the reply topic")
    assert Phone().press(first, "Allow once") == 200
    until(lambda: len(said(ntfy)) == 2, 30, "the old press told")
    assert said(ntfy)[1].startswith("Expired") and pending() == ["1"] and answers_sent(tmp_path) == []
    assert Phone().press(second, "Allow once") == 200
    until(lambda: answers_sent(tmp_path) == ["yes"], 30, "the new press answered")
    assert reply_topic(second) == reply_topic(first)  # kept in the keyring, as the key is
    assert daemon.stop() == 0


def test_off_by_default_nothing_is_made_or_followed_and_push_test_answer_says_when_the_press_came(
    tmp_path: Path, ntfy: NtfyStandIn, keyring_env: dict[str, str], daemons: list[DaemonProcess]
) -> None:
    config = configure(tmp_path, [go(tmp_path, "go"), permission("Run rm -rf build")])
    config.write_text(config.read_text(encoding="utf-8").replace("answers = true", ""), encoding="utf-8")
    env = cli_env(**keyring_env)
    daemons.append(run(env))
    add("phone", f"ntfy://127.0.0.1:{ntfy.port}/{TOPIC}", env)
    add("hook", f"json://127.0.0.1:{ntfy.port}/hook-Tq7secret", env)
    (tmp_path / "go").touch()
    (ask,) = until(lambda: ntfy.on(TOPIC), 30, "the approval's push")
    assert "actions" not in ask and "It waits for your answer at the desk" in ask["message"]
    listed = cli("push", "list", env=env).stdout
    assert "phone  ntfy  can be answered from the phone ([push] answers = true)" in listed
    assert "hook  json  one-way (answered at the desk)" in listed
    refused = cli("push", "test", "phone", "--answer", env=env)
    assert refused.returncode != 0 and "set [push] answers = true" in refused.stderr
    assert [r for r in ntfy.requests if r.method == "GET"] == []  # nothing followed
    assert _keyring(env, "push-answers/key") == "None"  # no key made

    config.write_text(
        config.read_text(encoding="utf-8").replace("[push]\n", "[push]\nanswers = true\n"), encoding="utf-8"
    )
    on = "phone  ntfy  answered from the phone\n"  # not the line of a target that "can be answered from the phone"
    until(lambda: on in cli("push", "list", env=env).stdout, 30, "the preference applied")
    one_way = cli("push", "test", "hook", "--answer", env=env)
    assert one_way.returncode != 0 and "hook is one-way" in one_way.stderr
    test = subprocess.Popen(
        [sys.executable, "-m", "acp_tray", "push", "test", "phone", "--answer"],
        env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    (trial,) = until(lambda: [m for m in ntfy.on(TOPIC) if m.get("actions")], 30, "the test approval")
    assert trial["title"] == "acp-tray: test approval" and [a["label"] for a in trial["actions"]] == [
        "Allow once",
        "Reject",
    ]
    assert Phone().press(trial, "Reject") == 200
    output, errors = test.communicate(timeout=60)
    assert test.returncode == 0, errors
    assert "phone: your press of \u201cReject\u201d arrived" in output
    until(lambda: said(ntfy)[-1:] == ["Your press arrived"], 30, "the phone told")
    assert pending() == ["1"] and answers_sent(tmp_path) == []  # the test answered nothing
