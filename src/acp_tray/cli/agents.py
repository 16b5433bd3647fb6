"""`acp-tray agents list | add | remove | restart`; `agents search`, `upgrade` and `add ID` (no
command, no --url) are the ACP Registry's (cli/registry.py), `agents secret` the keyring's
(cli/secrets.py)."""

from __future__ import annotations

import argparse
import os
from pathlib import Path

from acp_tray.cli.calls import ask, fetch
from acp_tray.cli.demo_hint import offer_demo_removal
from acp_tray.cli.output import EXIT_FAILED, EXIT_USAGE, field, out, say
from acp_tray.cli.status import agent_lines
from acp_tray.control import api
from acp_tray.logs.text import DESCRIPTION_LIMIT
from acp_tray.prefs.command_rules import program_problem
from acp_tray.prefs.names import agent_name_problem
from acp_tray.registry.progress import megabytes

VIAS = ("binary", "npx", "uvx")


def _via_after_name(rest: list[str]) -> tuple[str | None, list[str], str | None]:
    """(via, what is left, problem) from what follows `agents add ID`: `--via KIND` written after the
    name (argparse hands it over with the command's words)."""
    if rest[:1] == ["--via"] or (rest[:1] and rest[0].startswith("--via=")):
        given, left = (rest[1:2], rest[2:]) if rest[0] == "--via" else ([rest[0].removeprefix("--via=")], rest[1:])
        if not given or given[0] not in VIAS:
            return None, left, f"--via takes one of {', '.join(VIAS)}"
        return given[0], left, None
    return None, rest, None


def _from_registry(args: argparse.Namespace) -> bool:
    """`agents search`, `agents upgrade`, and `agents add ID` (no command, no --url): the ACP Registry."""
    if args.action in ("search", "upgrade"):
        return True
    return bool(args.action == "add" and args.url is None and not [p for p in args.agent_command if p != "--"])


def _name_allowed(name: str) -> bool:
    """A new agent's name is checked here first (the daemon checks it too): no round trip to refuse it."""
    problem = agent_name_problem(name)
    if problem is not None:
        say(problem)
    return problem is None


def _add_target(rest: list[str], url: str | None) -> tuple[list[str] | None, str | None, str | None]:
    """(command, url, problem) from what follows `agents add NAME`: `-- COMMAND ARGS...` (a `--`
    inside the command is kept), or `--url URL` written after the name."""
    if rest[:1] == ["--"]:
        rest = rest[1:]
    elif rest[:1] == ["--url"] or (rest[:1] and rest[0].startswith("--url=")):
        given = rest[1:] if rest[0] == "--url" else [rest[0].removeprefix("--url=")]
        if len(given) != 1 or url is not None:
            return None, None, "--url takes one URL (the agent's command, if any, goes after `--`)"
        return None, given[0], None
    if rest and rest[0].startswith("-"):
        return (
            None,
            None,
            (
                f"the agent's command cannot start with {rest[0]!r} (an option?): "
                "write acp-tray's options before NAME and the command after `--`"
            ),
        )
    return _program_from_here(rest) or None, url, None


def _program_from_here(command: list[str]) -> list[str]:
    """`./my-agent ARGS`: a program given by a relative path is found where the person typed it,
    as their shell would, not in the agent's working directory (their home by default)."""
    if not command:
        return command
    program = command[0]
    if os.path.dirname(program) and not os.path.isabs(program):
        return [os.path.abspath(program), *command[1:]]
    return command


def cmd_agents(args: argparse.Namespace) -> int:
    if args.action == "add":
        via, args.agent_command, problem = _via_after_name(args.agent_command)
        if problem is not None:
            say(problem)
            return EXIT_USAGE
        args.via = via or args.via
        if args.via is not None and not _from_registry(args):
            say("--via chooses how an agent from the ACP Registry runs (`agents add ID --via npx`), not a command")
            return EXIT_USAGE
    if _from_registry(args):
        from acp_tray.cli import registry

        return registry.run(args)
    if args.action == "list":
        return _list(args)
    if args.action == "add":
        return _add(args)
    if args.action == "remove":
        return _remove(args.name)
    op, done = api.AGENT_VERBS[args.action]
    code, _ = ask(op, api.NameArgs(args.name))
    if not code:
        out(f"{args.name}: {done}")
    return code


def _list(args: argparse.Namespace) -> int:
    code, rows = fetch(args, api.AGENTS_LIST)
    if rows is None:
        return code
    for line, row in zip(agent_lines(rows), rows, strict=True):
        target = field(row["target"], DESCRIPTION_LIMIT)
        out(line + f"\n      {row['kind']}: {target} · permission: {row['permission']}")
    if not rows:
        out("no agents configured: acp-tray agents add NAME -- COMMAND ARGS...")
    return 0


def _add(args: argparse.Namespace) -> int:
    if not _name_allowed(args.name):
        return EXIT_USAGE
    command, url, problem = _add_target(args.agent_command, args.url)
    if problem is None and (command is None) == (url is None):
        problem = "give the agent's command after `--`, or --url ws://… (one of the two)"
    if problem is None and command is not None:  # refused before anything is saved (the window's rule too)
        problem = program_problem(command[0], Path.cwd())
    if problem is not None:
        say(problem)
        return EXIT_USAGE
    code, result = ask(api.AGENTS_ADD, api.AddArgs(args.name, command=command, url=url))
    if result is not None:
        out(f"added {args.name} to {result['preferences']}; it is starting")
        offer_demo_removal()
    return code


def _remove(name: str) -> int:
    code, result = ask(api.AGENTS_REMOVE, api.NameArgs(name))
    if result is None:
        return code
    files = ""
    if result["problem"]:
        files = f"; its installed files are left in {result['files']} ({result['problem']})"
    elif result["deleted"] is not None:
        files = f"; deleted its installed files ({megabytes(result['deleted'])}, {result['files']})"
    out(f"{name}: removed (stopped){files}")
    return EXIT_FAILED if result["problem"] else 0
