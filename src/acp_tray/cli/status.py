"""`acp-tray status`: is the daemon running; its agents, do not disturb, approvals waiting; with
`--watch`, the same as it changes (for status bars)."""

from __future__ import annotations

import argparse
import sys

from acp_tray.cli.approvals import approval_lines
from acp_tray.cli.calls import fetch
from acp_tray.cli.output import EXIT_FAILED, EXIT_NO_DAEMON, field, out, print_event, say
from acp_tray.cli.questions import question_lines
from acp_tray.control import api, errors, replies, watch_events
from acp_tray.control.client import NoDaemonError, ReplyError, call
from acp_tray.logs.text import DESCRIPTION_LIMIT


def agent_lines(rows: list[replies.AgentRow]) -> list[str]:
    """A line per agent; its name and state columns as wide as their longest value (at least 14
    and 10), a space and more between them."""
    names = [field(row["name"]) for row in rows]
    name_width = max([13, *map(len, names)]) + 1
    state_width = max([9, *(len(field(row["state"])) for row in rows)]) + 1
    lines = []
    for name, row in zip(names, rows, strict=True):
        sessions = f"{row['sessions']} session" + ("s" if row["sessions"] != 1 else "")
        work = ", waits for you" if row["needs_you"] else ""
        work += f", {row['busy']} busy" if row["busy"] else ""
        work += f", {row['queued']} queued" if row["queued"] else ""
        detail = f"  ({field(row['detail'], DESCRIPTION_LIMIT)})" if row["detail"] else ""
        lines.append(f"  {name:<{name_width}} {field(row['state']):<{state_width}} {sessions}{work}{detail}")
        lines.extend(f"  {'':<{name_width}} {field(words)}" for words in usage_words(row))
    return lines


def costs(rows: list[replies.CostRow]) -> str:
    """ "0.027 USD + 3 credits" ("" for none)."""
    return " + ".join(field(cost["text"]) for cost in rows)


def usage_words(row: replies.AgentRow) -> list[str]:
    """Under an agent: its cost today, and each rate limit it reported."""
    today = costs(row.get("today", []))
    return ([f"today {today}"] if today else []) + [limit["text"] for limit in row.get("limits", [])]


def cmd_status(args: argparse.Namespace) -> int:
    if args.watch:
        return cmd_watch(args)
    code, status = fetch(args, api.STATUS)
    if status is None:
        return code
    uptime = int(status["uptime"])
    out(
        f"acp-tray {status['version']} running (pid {status['pid']}, up {uptime // 3600}h {uptime // 60 % 60}m)"
        f" · do not disturb: {status['dnd']} · {status['unread']} unread"
    )
    agents = status["agents"]
    connected = sum(a["state"] == "connected" for a in agents)
    today = costs(status.get("today", []))
    out(f"agents: {len(agents)} ({connected} connected)" + (f" · today {today}" if today else ""))
    for line in agent_lines(agents):
        out(line)
    if status["approvals"]:
        out(f"waiting for your approval: {len(status['approvals'])}")
        out("\n".join(approval_lines(status["approvals"])))
    if status["questions"]:
        out(f"questions waiting for you: {len(status['questions'])}")
        out("\n".join(question_lines(status["questions"])))
    return 0


def watch_line(state: watch_events.WatchState) -> str:
    """The state in one line, for a status bar: each agent and its state, approvals, unread, DND."""
    parts = [
        f"{field(row['name'])} {'waits for you' if row.get('needs_you') else row['state']}"
        for row in state.get("agents", [])
    ] or ["no agents"]
    waiting = len(state.get("approvals", []))
    if waiting:
        parts.append(f"{waiting} approval{'s' if waiting != 1 else ''} waiting")
    parts.append(f"{state.get('unread', 0)} unread")
    today = costs(state.get("today", []))
    if today:
        parts.append(f"today {today}")
    parts.append(f"DND {state.get('dnd', 'off')}")
    return " · ".join(parts)


def cmd_watch(args: argparse.Namespace) -> int:
    """`status --watch`: a line now, then one each time what it says changes (with --json: the
    snapshot, then each change and history event as it comes), until the daemon stops."""
    state: watch_events.WatchState = {}
    shown = None
    try:
        with call(api.WATCH, api.Args(), timeout=None) as pending:
            for event in pending.events():
                if args.json:
                    print_event(event)
                    sys.stdout.flush()
                    continue
                if isinstance(event, watch_events.Snapshot | watch_events.Changes):
                    state.update(event.state)
                line = watch_line(state)
                if line != shown:
                    out(line, flush=True)
                    shown = line
    except NoDaemonError as exc:
        say(str(exc))
        return EXIT_NO_DAEMON
    except ReplyError as exc:
        if exc.code != errors.ErrorCode.CLOSED:
            say(str(exc))
            return EXIT_FAILED
    say("the daemon stopped")  # it closed the connection as it stopped
    return EXIT_NO_DAEMON
