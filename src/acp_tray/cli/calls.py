"""Requests to the running daemon from the commands: the reply as the op's declared type, or what
went wrong said in one line with the exit code to end with."""

from __future__ import annotations

import argparse
from typing import TypeVar

from acp_tray.cli.output import EXIT_FAILED, EXIT_NO_DAEMON, print_json, say
from acp_tray.control.api import Args, Op
from acp_tray.control.client import NoDaemonError, ReplyError, request
from acp_tray.control.replies import Waiting

A = TypeVar("A", bound=Args)
R = TypeVar("R")


def failure(exc: NoDaemonError | ReplyError) -> int:
    """Say why a request failed; the exit code to end with."""
    say(str(exc))
    return EXIT_NO_DAEMON if isinstance(exc, NoDaemonError) else EXIT_FAILED


def ask(op: Op[A, R, object], args: A, *, timeout: float | None = None) -> tuple[int, R | None]:
    """(0, the reply), or (the exit code, None) once the reason is said; `timeout`: a wait of its
    own (a press on a phone), else the client's. What the daemon says it waits for (the OS keyring's
    dialog) is said as it comes; the reply is then waited for as long as the person takes."""
    try:
        if timeout is None:
            return 0, request(op, args, on_event=_waiting)
        return 0, request(op, args, on_event=_waiting, timeout=timeout)
    except (NoDaemonError, ReplyError) as exc:
        return failure(exc), None


def _waiting(event: object) -> None:
    if isinstance(event, Waiting):
        say(f"{event.text}…")


def fetch(args: argparse.Namespace, op: Op[Args, R, object]) -> tuple[int, R | None]:
    """A data request: with --json the data is printed here and None returned (so is it on error)."""
    code, value = ask(op, Args())
    if code == 0 and getattr(args, "json", False):
        print_json(value)
        return 0, None
    return code, value
