"""Streamed events as a person meets them. Every event a real daemon streams while `acp-tray prompt`
runs against the demo agent (and the `watch` stream meanwhile, as `status --watch` and the window
read it) is one its op declares, read as its type; and an event a client cannot read (a daemon of
another build, a broken line) is said in one line, never a traceback, and the client ends."""

from __future__ import annotations

import contextlib
import json
import socket
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from acp_tray.control import api, replies, watch_events
from acp_tray.control.client import ReplyError, call
from acp_tray.control.endpoint import prepare_socket_path
from tests.support.daemons import DaemonProcess, cli, start
from tests.support.waiting import until


def test_every_event_of_a_real_prompt_and_of_watch_is_one_its_op_declares(
    isolated_dirs: Path, daemons: list[DaemonProcess]
) -> None:
    daemon = start(daemons, "demo")
    watched: list[dict[str, Any]] = []

    def watch() -> None:
        with contextlib.suppress(ReplyError), call(api.WATCH, api.Args(), timeout=None) as pending:
            while "event" in (message := pending.next()):
                watched.append(message)

    threading.Thread(target=watch, daemon=True).start()
    until(lambda: watched, what="the first snapshot")
    sent: list[dict[str, Any]] = []  # as the daemon sent them
    with call(api.PROMPT, api.PromptArgs("demo", "show your notices"), timeout=60) as pending:
        while "event" in (message := pending.next()):
            sent.append(message)
    assert message["ok"] and message["result"]["stop_reason"] == "end_turn", message

    events = [api.PROMPT.event(each) for each in sent]
    assert isinstance(events[0], replies.Queued) and isinstance(events[1], replies.Started), events[:2]
    assert events[0].job == message["result"]["job"] and events[1].session == "default"
    reply = "".join(event.text for event in events if isinstance(event, replies.Chunk))
    assert reply.startswith("Hello from the acp-tray demo agent. You said: 'show your notices'.")
    assert all(isinstance(event, replies.Chunk) for event in events[2:])

    done = cli("prompt", "demo", "hello again")  # the CLI reads the same stream as its types
    assert done.returncode == 0 and "You said: 'hello again'." in done.stdout, done.stderr
    until(lambda: any(each.get("event") == "history" for each in watched), what="the notices in the history")
    assert daemon.stop() == 0
    kinds = [type(api.WATCH.event(each)) for each in watched]
    assert kinds[0] is watch_events.Snapshot and {watch_events.Changes, watch_events.HistoryAdded} <= set(kinds)


@contextlib.contextmanager
def answering_daemon(*lines: dict[str, Any]) -> Iterator[list[dict[str, Any]]]:
    """A stand-in for the daemon on the control socket (the person's own, 0600): it takes one
    request, answers with `lines` and closes; the requests it took are listed."""
    path = prepare_socket_path()
    requests: list[dict[str, Any]] = []
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as server:
        server.bind(str(path))
        path.chmod(0o600)
        server.listen(1)

        def serve() -> None:
            connection, _ = server.accept()
            with connection, connection.makefile("rwb") as stream:
                requests.append(json.loads(stream.readline()))
                for line in lines:
                    stream.write(json.dumps({"v": 1, **line}).encode() + b"\n")
                stream.flush()

        thread = threading.Thread(target=serve, daemon=True)
        thread.start()
        yield requests
        thread.join(10)


DONE = {"ok": True, "result": {"job": "1", "stop_reason": "end_turn", "error": None}}
QUEUED = {"event": "queued", "job": "1", "ahead": 0, "session": "default", "session_id": "s1"}


@pytest.mark.parametrize(
    ("event", "said"),
    [
        ({"event": "chunk"}, "a 'chunk' event of `prompt` without its 'text'"),
        ({"event": "surprise", "text": "hi"}, "`prompt` streams no 'surprise' event"),
        ({**QUEUED, "ahead": "two"}, "a 'queued' event of `prompt` with a wrong 'ahead'"),
    ],
    ids=["a chunk without text", "an event prompt does not stream", "a queued event with words for a number"],
)
def test_a_prompt_event_the_cli_cannot_read_is_said_in_one_line(
    isolated_dirs: Path, event: dict[str, Any], said: str
) -> None:
    with answering_daemon(QUEUED, event, DONE) as requests:
        done = cli("prompt", "demo", "hi", timeout=30)
    assert requests[0]["op"] == "prompt"
    assert done.returncode == 1, (done.stdout, done.stderr)
    (line,) = done.stderr.splitlines()  # one line, no traceback
    assert line.startswith(f"acp-tray: unexpected answer from the daemon: {said}"), line


def test_a_watch_event_status_cannot_read_is_said_in_one_line(isolated_dirs: Path) -> None:
    snapshot = {"event": "snapshot", "dnd": "off", "unread": 0, "agents": []}
    with answering_daemon(snapshot, {"event": "change", "agents": "demo"}):
        done = cli("status", "--watch", timeout=30)
    assert done.stdout.splitlines() == ["no agents · 0 unread · DND off"]
    assert done.returncode == 1 and "Traceback" not in done.stderr, done.stderr
    assert "unexpected answer from the daemon: a 'change' event of `watch` with a wrong 'agents'" in done.stderr
