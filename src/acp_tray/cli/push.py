"""`acp-tray push list | add NAME | test NAME | remove NAME`: the push targets, through the daemon.
`add` reads the Apprise URL without echo (or from a pipe): never from the command line, where
every process could read it."""

from __future__ import annotations

import argparse

from acp_tray.cli.calls import ask, fetch
from acp_tray.cli.output import EXIT_FAILED, EXIT_USAGE, field, out, say
from acp_tray.cli.secrets import read_secret
from acp_tray.control import api
from acp_tray.push.targets import target_name_problem

ANSWERS = {
    "on": "answered from the phone",
    "off": "can be answered from the phone ([push] answers = true)",
    "one-way": "one-way (answered at the desk)",
}


def cmd_push(args: argparse.Namespace) -> int:
    if args.action == "list":
        return _list(args)
    problem = target_name_problem(args.name)
    if problem is not None:
        say(problem)
        return EXIT_USAGE
    if args.action == "add":
        return _add(args.name)
    if args.action == "test":
        if args.answer:
            out(f"{args.name}: pushing a test approval; press one of its buttons on the phone (waiting up to "
                f"{api.ANSWER_TEST_WAIT:g} s)")  # fmt: skip
        wait = api.ANSWER_TEST_WAIT + 30.0 if args.answer else 30.0
        code, reply = ask(api.PUSH_TEST, api.PushTestArgs(args.name, answer=args.answer), timeout=wait)
        if reply is None:
            return code
        out(f"{args.name}: {reply['detail']}")
        return 0 if reply["accepted"] and (reply["pressed"] is not None or not args.answer) else EXIT_FAILED
    code, _ = ask(api.PUSH_REMOVE, api.PushNameArgs(args.name))
    if code == 0:
        out(f"{args.name}: removed (its URL deleted from the OS keyring)")
    return code


def _list(args: argparse.Namespace) -> int:
    code, rows = fetch(args, api.PUSH_LIST)
    for row in rows or []:
        chosen = "" if row["chosen"] else "  (not in [push] targets)"
        out(f"{field(row['name'])}  {field(row['service'])}  {ANSWERS[row['answers']]}{chosen}")
    if code == 0 and rows == []:
        out("no push targets: add one with `acp-tray push add NAME` (its Apprise URL is asked for)")
    return code


def _add(name: str) -> int:
    url = read_secret(f"Apprise URL for {name} (not shown), e.g. ntfy://ntfy.sh/TOPIC: ")
    if not url.strip():
        say(f"nothing entered; no push target {name} added")
        return EXIT_USAGE
    code, added = ask(api.PUSH_ADD, api.PushAddArgs(name, url))
    if added is not None:
        out(f"{name}: {added['service']} target kept in the OS keyring; try it: `acp-tray push test {name}`")
    return code
