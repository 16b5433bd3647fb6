"""`acp-tray agents secret NAME VAR [--delete]`: keep an agent's secret (an API key) in the OS
keyring, read without echo, or delete it; a running agent restarts with it."""

from __future__ import annotations

import argparse
import sys

from acp_tray.cli.output import EXIT_FAILED, EXIT_USAGE, out, say
from acp_tray.control import api
from acp_tray.control.client import NoDaemonError, ReplyError, request


def cmd_secret(args: argparse.Namespace) -> int:
    """Keep VAR for the agent in the OS keyring (read without echo), or delete it; then restart it."""
    from acp_tray.files import paths
    from acp_tray.state.secrets import SecretError, SecretNames, variable_problem

    problem = variable_problem(args.var)
    if problem is not None:  # said before the value is asked for
        say(problem)
        return EXIT_USAGE
    names = SecretNames(paths.secret_names_file())
    try:
        if args.delete:
            if not names.delete(args.name, args.var):
                say(f"{args.name} has no secret {args.var} in the keyring")
                return EXIT_FAILED
            out(f"{args.name}: {args.var} deleted from the OS keyring")
        else:
            names.store(args.name, args.var, read_secret(f"{args.var} for {args.name} (not shown): "))
            out(f"{args.name}: {args.var} stored in the OS keyring; given to the agent when it starts")
    except SecretError as exc:
        say(str(exc))
        return EXIT_FAILED
    try:
        request(api.AGENTS_RESTART, api.NameArgs(args.name))
        out(f"{args.name}: restarting")
    except (NoDaemonError, ReplyError):
        pass  # no daemon, or no such agent yet: it is used when the agent starts
    return 0


def read_secret(prompt: str) -> str:
    if sys.stdin.isatty():
        import getpass

        return getpass.getpass(prompt)
    return sys.stdin.readline().rstrip("\r\n")  # piped in (scripts): never echoed either
