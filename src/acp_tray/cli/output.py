"""What every command prints and how it ends: one-line messages, terminal-safe output, JSON, the
exit codes. Standard library only (and logs/text.py), so that every command starts fast."""

from __future__ import annotations

import json
import sys

from acp_tray.control.wire import VERSION
from acp_tray.logs.text import NAME_LIMIT, plain_line, terminal_text

EXIT_OK = 0
EXIT_FAILED = 1  # the daemon refused or failed, or what was asked could not be done (the message says why)
EXIT_USAGE = 2  # the command line, or a file it names, is wrong
EXIT_NO_DAEMON = 3  # no daemon is running (for this user)
EXIT_INTERRUPTED = 130  # 128 + SIGINT, as shells report a command Ctrl+C ended
STOP_EXIT = {"end_turn": 0, "max_tokens": 4, "max_turn_requests": 5, "refusal": 6, "cancelled": EXIT_INTERRUPTED}


def say(message: str) -> None:
    """A message for the person, on stderr: `acp-tray: MESSAGE`."""
    print(terminal_text(f"acp-tray: {message}"), file=sys.stderr, flush=True)


def fail(message: str, code: int = EXIT_USAGE) -> int:
    """Say `message`; the exit code to end with."""
    say(message)
    return code


def out(text: str, *, flush: bool = False) -> None:
    """Everything printed here may carry an agent's text: no escape sequence reaches the terminal."""
    print(terminal_text(text), flush=flush)


def print_json(value: object) -> None:
    print(json.dumps(value, ensure_ascii=True, indent=None))  # escapes: control and bidi characters too


def print_event(event: object) -> None:
    """A streamed event as `--json` prints it: one line, as the daemon sent it."""
    from acp_tray.control.streamed import wire_event  # the events' declarations: only where they are printed

    print_json({"v": VERSION, **wire_event(event)})


def field(value: object, limit: int = NAME_LIMIT) -> str:
    """A value from the daemon or an agent as one plain, bounded line."""
    return plain_line(str(value), limit)
