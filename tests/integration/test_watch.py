"""`acp-tray status --watch [--json]` against a real daemon: a snapshot, then a line per change as
agents change state, DND is switched and notices arrive; and a watcher that stops reading holds
the daemon to a bounded amount of memory, then gets a fresh snapshot when it reads again; push targets
added and removed are said in it by name and service."""

from __future__ import annotations

import itertools
import json
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from acp_tray.control.endpoint import socket_path
from acp_tray.files import paths
from tests.support.agents import scripted_command
from tests.support.daemons import DaemonProcess, cli, cli_env, rss_kib
from tests.support.push_cli import add
from tests.support.repo import ROOT
from tests.support.waiting import until


def follow(*args: str) -> tuple[subprocess.Popen[str], list[str]]:
    """`acp-tray status --watch ARGS` started; its lines gathered as they come."""
    import threading

    proc = subprocess.Popen(
        [sys.executable, "-m", "acp_tray", "status", "--watch", *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=cli_env(),
        cwd=ROOT,
    )
    lines: list[str] = []

    def pump() -> None:
        assert proc.stdout is not None
        for line in proc.stdout:
            lines.append(line.rstrip("\n"))

    threading.Thread(target=pump, daemon=True).start()
    return proc, lines


def states(events: list[dict[str, Any]]) -> list[str]:
    """The demo agent's state in each snapshot or change that names the agents."""
    return [e["agents"][0]["state"] for e in events if "agents" in e]


def test_watch_json_is_a_snapshot_then_a_line_per_change(isolated_dirs: Path, daemons: list[DaemonProcess]) -> None:
    daemon = DaemonProcess("run", "--headless")
    daemons.append(daemon)
    daemon.wait_for_line("demo  connected")
    watcher, lines = follow("--json")
    try:
        until(lambda: lines, what="the first line")
        first = json.loads(lines[0])
        assert first["event"] == "snapshot" and first["dnd"] == "off"
        assert [a["name"] for a in first["agents"]] == ["demo"] and first["sessions"][0]["agent"] == "demo"
        assert cli("dnd", "on").returncode == 0
        until(lambda: any(json.loads(line).get("dnd", "").startswith("on") for line in lines), what="DND on")
        assert cli("agents", "restart", "demo").returncode == 0

        def events() -> list[dict[str, Any]]:
            return [json.loads(line) for line in lines]

        until(lambda: states(events())[-2:] == ["starting", "connected"], what="the restart, step by step")
        assert "stopped" in states(events()) or "exited" in states(events())

        # the demo agent introduced itself at its first start only; asked, it shows its notices
        # again: each notice is a history event, in order
        assert cli("prompt", "demo", "show your notices").returncode == 0

        def titles() -> list[str]:
            return [e["record"]["title"] for e in events() if e["event"] == "history"]

        until(lambda: "Workspace indexed" in titles(), what="the new notices")
        start = titles().index("Workspace indexed")
        until(lambda: len(titles()) >= start + 4, what="all four")
        assert titles()[start : start + 2] == ["Workspace indexed", "Example: Using default settings"], titles()
        changes = [e for e in events() if e["event"] == "change"]
        keys = {"dnd", "morning", "unread", "agents", "approvals", "sessions", "preferences"}
        assert all(set(e) - {"v", "event"} <= keys for e in changes)
        assert all(len(set(e) - {"v", "event"}) >= 1 for e in changes)  # never an empty change
    finally:
        assert daemon.stop() == 0
    assert watcher.wait(10) == 3  # the daemon stopped: said, and the exit code of "not running"
    assert watcher.stderr is not None and "the daemon stopped" in watcher.stderr.read()


def test_watch_json_carries_the_push_targets_as_they_are_added_and_removed_never_their_urls(
    isolated_dirs: Path, keyring_env: dict[str, str], daemons: list[DaemonProcess]
) -> None:
    """A status bar (and the window's Preferences page) learns of a target added or removed from
    the stream itself: by name and service, the URL nowhere in it."""
    config = paths.config_file()
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text('notifier = "console"\n', encoding="utf-8")
    env = cli_env(**keyring_env)
    daemon = DaemonProcess("run", "--headless", env=env)
    daemons.append(daemon)
    daemon.wait_for_line("control: ")
    watcher, lines = follow("--json")
    token = "tok5Wz81WatchSecret"
    try:
        until(lambda: lines, what="the first line")
        assert json.loads(lines[0])["push"] == []

        def targets() -> list[Any]:
            return [event["push"] for event in map(json.loads, lines) if "push" in event]

        add("phone", f"json://127.0.0.1:9/hook/{token}", env)
        until(lambda: targets()[-1] != [], what="the target added")
        (added,) = targets()[-1]
        assert (added["name"], added["service"], added["chosen"]) == ("phone", "json", True)
        assert cli("push", "remove", "phone", env=env).returncode == 0
        until(lambda: targets()[-1] == [], what="the target removed")
        assert token not in "\n".join(lines)
    finally:
        assert daemon.stop() == 0
    watcher.wait(10)


def test_watch_text_is_one_status_line_per_change(isolated_dirs: Path, daemons: list[DaemonProcess]) -> None:
    daemon = DaemonProcess("run", "--headless")
    daemons.append(daemon)
    daemon.wait_for_line("demo  connected")
    watcher, lines = follow()
    until(lambda: lines, what="the first line")
    assert lines[0].startswith("demo connected · ") and lines[0].endswith("DND off"), lines
    assert cli("dnd", "on").returncode == 0
    until(lambda: lines[-1].startswith("demo connected") and "DND on" in lines[-1], what="the DND line")
    assert all(a != b for a, b in itertools.pairwise(lines))  # a line only when what it says changed
    assert daemon.stop() == 0
    assert watcher.wait(10) == 3


def test_no_daemon_is_said_in_one_line(isolated_dirs: Path) -> None:
    done = cli("status", "--watch", timeout=20)
    assert done.returncode == 3 and done.stdout == "" and "not running" in done.stderr


FLOOD = 3000
DESCRIPTION = 10_000  # characters: 3000 such records are ~30 MB of JSON if anything buffered them all


def test_a_watcher_that_stops_reading_costs_bounded_memory_then_gets_a_fresh_snapshot(
    isolated_dirs: Path, daemons: list[DaemonProcess]
) -> None:
    """Two floods of notices while a watcher reads nothing: the first settles the daemon's own
    memory (its allocator keeps what the flood used: ~12 MB here, watcher or not); the second
    must not grow it by what the records would take if they were kept for the watcher."""
    flood: list[dict[str, Any]] = []
    for n in (1, 2):  # titles "0 0" … "0 2999", then "1 0" … "1 2999"
        notice = {"sessionUpdate": "notice", "severity": "info", "title": f"{n - 1} {{n}}"}
        flood += [{"wait_file": str(isolated_dirs / f"go-{n}")}, {"repeat": FLOOD, "update": notice}]
        notice["description"] = "x" * DESCRIPTION
    config = paths.config_file()
    config.parent.mkdir(parents=True)
    config.write_text(f'notifier = "console"\n[agents.flood]\ncommand = {json.dumps(scripted_command())}\n')
    daemon = DaemonProcess("run", "--headless", env=cli_env(SCRIPTED_AGENT_STEPS=json.dumps(flood)))
    daemons.append(daemon)
    daemon.wait_for_line("flood  connected")
    history = paths.history_file()

    def flooded(n: int) -> int:
        (isolated_dirs / f"go-{n}").touch()
        last = f'"title":"{n - 1} {FLOOD - 1}"'
        until(lambda: history.exists() and last in history.read_text()[-(DESCRIPTION + 1000) :], 60, f"flood {n}")
        return rss_kib(daemon.proc.pid)

    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)  # the kernel holds little for it
        sock.connect(str(socket_path()))
        sock.sendall(b'{"v":1,"op":"watch","args":{}}\n')
        time.sleep(1.0)  # its snapshot is sent; from now on it reads nothing
        before = rss_kib(daemon.proc.pid)
        settled = flooded(1)
        grown = flooded(2) - settled
        print(f"daemon RSS: {before} kB, {settled} kB after a first flood, +{grown} kB after a second")
        assert grown < 8_000, f"+{grown} kB: the daemon keeps records for a client that does not read"
        # now it reads: what it gets is bounded, then a fresh snapshot of the state as it is
        sock.settimeout(10)
        stream = sock.makefile("rb")
        events: list[dict[str, Any]] = []
        while len([e for e in events if e["event"] == "snapshot"]) < 2:
            events.append(json.loads(stream.readline()))
        history_events = [e for e in events if e["event"] == "history"]
        assert len(history_events) < FLOOD // 2, "it was sent (nearly) every record: nothing was bounded"
        last = events[-1]
        status = json.loads(cli("status", "--json").stdout)
        assert last["unread"] == status["unread"] and last["agents"] == status["agents"]
    assert daemon.stop() == 0
