"""The control ops the window uses, against a real daemon hosting real agent subprocesses:
`agents.stop`/`agents.start` (as the tray's Stop and Start), `dnd.set` (written to the daemon's
preferences file, comments kept, applied at once), `history` (newest first, a page at a time, over
the rotated files, filtered) and `read` (mark all read)."""

from __future__ import annotations

import json
import time
import tomllib
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any, Never

import pytest

from acp_tray.control import api, replies
from acp_tray.control.client import ReplyError, call, request
from acp_tray.events import NoticeReceived
from acp_tray.files import paths
from acp_tray.protocol.notice import Notice
from acp_tray.state.history import HistoryWriter
from tests.support.agents import agent_table, scripted_command, session_agent_table
from tests.support.config import COMMENT, history, write_config
from tests.support.daemons import DaemonProcess, start
from tests.support.waiting import until


def state_of(name: str) -> str:
    return next(a["state"] for a in request(api.STATUS, api.Args())["agents"] if a["name"] == name)


def refused(op: api.Op[Any, Any, Any], args: api.Args) -> ReplyError:
    with pytest.raises(ReplyError) as error:
        request(op, args)
    return error.value


def notice(title: str, severity: str = "info") -> dict[str, Any]:
    return {"update": {"sessionUpdate": "notice", "severity": severity, "title": title}}


def scripted(name: str, steps: list[dict[str, Any]]) -> str:
    return agent_table(name, scripted_command(), {"SCRIPTED_AGENT_STEPS": json.dumps(steps)})


# agents.stop, agents.start ----------------------------------------------------------------------


def test_stop_and_start_an_agent_as_the_tray_does(daemons: list[DaemonProcess], tmp_path: Path) -> None:
    write_config(session_agent_table("sa", tmp_path / "sa.log"), session_agent_table("sb"))
    start(daemons, "sa", "sb")
    assert request(api.AGENTS_STOP, api.NameArgs("sa")) == {"name": "sa"}
    assert state_of("sa") == "stopped"  # answered once it has stopped: what the CLI then says is true
    # stopped as from the tray: a change to the preferences (DND here) does not start it again
    request(api.DND_SET, api.DndArgs("on"))
    time.sleep(1.0)
    assert state_of("sa") == "stopped" and state_of("sb") == "connected"
    assert request(api.AGENTS_START, api.NameArgs("sa")) == {"name": "sa"}
    until(lambda: state_of("sa") == "connected", what="sa connected again")
    assert request(api.AGENTS_START, api.NameArgs("sa")) == {"name": "sa"}  # running already: left as it is
    time.sleep(0.5)
    assert state_of("sa") == "connected"


@pytest.mark.parametrize("op", [api.AGENTS_STOP, api.AGENTS_START])
def test_stopping_or_starting_an_unknown_agent_is_refused_as_restart_is(
    daemons: list[DaemonProcess], tmp_path: Path, op: api.Op[api.NameArgs, replies.NameReply, Never]
) -> None:
    write_config(session_agent_table("sa", tmp_path / "sa.log"))
    start(daemons, "sa")
    error, restart = refused(op, api.NameArgs("nope")), refused(api.AGENTS_RESTART, api.NameArgs("nope"))
    said = "no agent called 'nope' (configured: sa)"
    assert (error.code, str(error)) == (restart.code, str(restart)) == ("not_found", said)


# dnd.set ------------------------------------------------------------------------------------------


def test_dnd_set_writes_the_preferences_and_applies_them_at_once(daemons: list[DaemonProcess], tmp_path: Path) -> None:
    config = write_config(session_agent_table("sa", tmp_path / "sa.log"))
    start(daemons, "sa")

    def dnd_set(mode: Any, value: str | None = None) -> replies.DndReply:
        reply = request(api.DND_SET, api.DndArgs(mode, value))
        assert request(api.STATUS, api.Args())["dnd"] == reply["dnd"]  # applied: status says it at once
        assert COMMENT in config.read_text(encoding="utf-8")  # the person's comment is kept
        return reply

    assert dnd_set("on") == {"dnd": "on", "until": None}
    assert tomllib.loads(config.read_text(encoding="utf-8"))["dnd"] == {"enabled": True, "until": ""}
    before = datetime.now().astimezone()
    reply = dnd_set("for", "30m")
    assert reply["until"] is not None and reply["dnd"].startswith("on until ")
    until_ = datetime.fromisoformat(reply["until"])
    assert before + timedelta(minutes=29) < until_ <= datetime.now().astimezone() + timedelta(minutes=30)
    assert tomllib.loads(config.read_text(encoding="utf-8"))["dnd"] == {"enabled": True, "until": until_}
    reply = dnd_set("until", "tomorrow")  # the preferences' morning: 08:00 by default
    assert reply["until"] is not None and datetime.fromisoformat(reply["until"]).time().isoformat() == "08:00:00"
    reply = dnd_set("until", "23:59")
    assert reply["until"] is not None and datetime.fromisoformat(reply["until"]).strftime("%H:%M") == "23:59"
    assert dnd_set("off") == {"dnd": "off", "until": None}
    assert tomllib.loads(config.read_text(encoding="utf-8"))["dnd"] == {"enabled": False, "until": ""}


@pytest.mark.parametrize(
    ("mode", "value", "said"),
    [
        ("for", "soon", 'not a duration: \'soon\' (try "30m", "1h", "1h30m", "tomorrow"; or until 14:00)'),
        ("for", "-5m", "a duration cannot be negative: '-5m' (try '5m')"),
        ("until", "25:00", "not a time of day: '25:00' (hours 00-23, minutes 00-59, e.g. 14:00)"),
    ],
)
def test_a_bad_duration_is_a_bad_request_in_plain_words(
    daemons: list[DaemonProcess], tmp_path: Path, mode: Any, value: str, said: str
) -> None:
    config = write_config(session_agent_table("sa", tmp_path / "sa.log"))
    start(daemons, "sa")
    written = config.read_text(encoding="utf-8")
    error = refused(api.DND_SET, api.DndArgs(mode, value))
    assert (error.code, str(error)) == ("bad_request", said)
    assert config.read_text(encoding="utf-8") == written and request(api.STATUS, api.Args())["dnd"] == "off"


# history, read ------------------------------------------------------------------------------------


def older_history(count: int) -> None:
    """A rotated history file with `count` older records from agent "old" (as the daemon writes them)."""
    writer = HistoryWriter(paths.history_file().with_name(paths.history_file().name + ".1"))
    for i in range(count):
        writer.append(NoticeReceived("old", "s", Notice("warning", f"old {i}", "from before the rotation")))
    writer.close()


def pages(limit: int, **filters: Any) -> list[list[str]]:
    """Every page of the history (as the window pages back) that `filters` let through: their titles."""
    found, before = [], None
    while True:
        page = request(api.HISTORY, api.HistoryArgs(before=before, limit=limit, **filters))
        found.append([r["title"] for r in page["records"]])
        before = page["next"]
        if before is None:
            return found


def flat(found: list[list[str]]) -> list[str]:
    return [title for page in found for title in page]


def test_history_pages_newest_first_over_the_rotated_files_with_filters(
    daemons: list[DaemonProcess], tmp_path: Path
) -> None:
    older_history(5)
    go = tmp_path / "go"
    steps = [notice(f"n{i}", "error" if i % 4 == 0 else "info") for i in range(40)]
    later = [{"wait_file": str(go)}, *(notice(f"late {i}") for i in range(3))]
    write_config(scripted("talker", [*steps, *later]))
    start(daemons, "talker")
    until(lambda: any(r.get("title") == "n39" for r in history()), what="the 40 notices in the history")

    first = request(api.HISTORY, api.HistoryArgs(agent="talker", limit=15))
    assert [r["title"] for r in first["records"]] == [f"n{i}" for i in range(39, 24, -1)]
    assert first["unread"] == request(api.STATUS, api.Args())["unread"] and first["next"] is not None
    with call(api.WATCH, api.Args(), timeout=30.0) as watch:
        assert watch.next()["event"] == "snapshot"
        go.touch()  # new records while the person pages back: the next page goes on where this one ended
        live: list[dict[str, Any]] = []  # the new records as the window sees them come
        while len(live) < 3:
            event = watch.next()
            if event["event"] == "history":
                live.append(event["record"])
    rest = pages(15, agent="talker")
    newest = request(api.HISTORY, api.HistoryArgs(limit=3))["records"]
    assert [(r["title"], r["id"]) for r in live[::-1]] == [(r["title"], r["id"]) for r in newest]  # the same ids
    second = request(api.HISTORY, api.HistoryArgs(agent="talker", limit=15, before=first["next"]))
    assert [r["title"] for r in second["records"]] == [f"n{i}" for i in range(24, 9, -1)]
    assert rest[0] == ["late 2", "late 1", "late 0", *(f"n{i}" for i in range(39, 27, -1))]
    assert flat(rest) == ["late 2", "late 1", "late 0", *(f"n{i}" for i in range(39, -1, -1))]
    assert [len(page) for page in rest] == [15, 15, 13]

    everything = request(api.HISTORY, api.HistoryArgs(limit=200))["records"]
    assert [r["title"] for r in everything[-5:]] == [f"old {i}" for i in range(4, -1, -1)]  # the rotated file, last
    assert len({r["id"] for r in everything}) == len(everything) == len(history())
    assert [r["title"] for r in everything if r["agent"] == "talker"] == flat(rest)
    assert flat(pages(2, agent="old")) == [f"old {i}" for i in range(4, -1, -1)]
    assert flat(pages(4, severity="error")) == [f"n{i}" for i in range(36, -1, -4)]
    assert flat(pages(15, severity="warning", agent="old")) == [f"old {i}" for i in range(4, -1, -1)]
    assert flat(pages(15, text="N3")) == [*(f"n{i}" for i in range(39, 29, -1)), "n3"]
    assert flat(pages(15, text="before the ROTATION")) == [f"old {i}" for i in range(4, -1, -1)]
    assert pages(15, agent="nobody") == [[]]


def test_read_marks_all_read(daemons: list[DaemonProcess], tmp_path: Path) -> None:
    write_config(scripted("talker", [notice(f"n{i}", "warning") for i in range(3)]))
    start(daemons, "talker")
    until(lambda: request(api.STATUS, api.Args())["unread"] >= 3, what="the notices unread")
    assert request(api.READ, api.Args()) == {"unread": 0}
    assert request(api.STATUS, api.Args())["unread"] == 0
    assert request(api.HISTORY, api.HistoryArgs(limit=1))["unread"] == 0


def test_waiting_for_an_agent_whose_program_does_not_exist_ends_at_once(
    daemons: list[DaemonProcess], tmp_path: Path
) -> None:
    """Its run failed before the wait began and nothing restarts it: the wait says so instead of
    running to its 60 s timeout (the client gives up after 20 s: no answer by then fails the test)."""
    write_config(session_agent_table("sa", tmp_path / "sa.log"))
    start(daemons, "sa")
    missing = str(tmp_path / "no-such-program")
    request(api.AGENTS_ADD, api.AddArgs("nope", command=[missing]))
    until(lambda: state_of("nope") == "failed", what="the failed start")
    reply = request(api.AGENTS_WAIT, api.WaitArgs("nope", command=[missing], timeout=60.0), timeout=20.0)
    assert (reply["connected"], reply["state"]) == (False, "failed")
