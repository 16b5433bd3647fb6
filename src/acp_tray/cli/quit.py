"""`acp-tray quit`: stop the daemon, and wait until it has let go of its lock."""

from __future__ import annotations

import argparse
import time

from acp_tray.cli.calls import ask
from acp_tray.cli.output import EXIT_FAILED, out, say
from acp_tray.control import api
from acp_tray.control.endpoint import LOCK_NAME, runtime_dir
from acp_tray.control.instance import lock_held

QUIT_WAIT = 20.0  # the daemon's own shutdown is bounded well below this (agents get 5 s)


def cmd_quit(args: argparse.Namespace) -> int:
    """Stop the daemon and wait (up to QUIT_WAIT seconds) until it has let go of its lock, so that
    an `acp-tray run` right after starts a new one; --no-wait returns once it has been told."""
    code, result = ask(api.QUIT, api.Args())
    if result is None:
        return code
    out("acp-tray is stopping")  # at once: the wait below can take a few seconds (agents get 5 s)
    if args.no_wait:
        return 0
    lock = runtime_dir() / LOCK_NAME
    deadline = time.monotonic() + QUIT_WAIT
    while lock_held(lock):
        if time.monotonic() > deadline:
            say(
                f"acp-tray (pid {result['pid']}) is still stopping after {QUIT_WAIT:g} s"
                " (an agent slow to exit?); `acp-tray status` shows whether it is still there"
            )
            return EXIT_FAILED
        time.sleep(0.05)
    out("acp-tray stopped")
    return 0
