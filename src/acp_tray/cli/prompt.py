"""`acp-tray prompt AGENT TEXT...` (the reply streamed; Ctrl+C cancels the turn), `cancel AGENT`
and `sessions`. A prompt exits with its turn's stop reason (output.STOP_EXIT)."""

from __future__ import annotations

import argparse
import os
import signal
import sys
from datetime import UTC, datetime

from acp_tray.cli.calls import ask, fetch
from acp_tray.cli.output import EXIT_FAILED, EXIT_NO_DAEMON, STOP_EXIT, field, out, print_event, print_json, say
from acp_tray.control import api, replies
from acp_tray.control.client import NoDaemonError, ReplyError, call, request
from acp_tray.logs.text import DESCRIPTION_LIMIT, terminal_text
from acp_tray.prefs.names import pasteable
from acp_tray.presentation.doing import session_doing

PROMPT_TIMEOUT = None  # a turn takes as long as it takes


def _cwd(args: argparse.Namespace) -> str | None:
    return os.path.abspath(args.cwd) if getattr(args, "cwd", None) else None


def session_words(row: replies.SessionRow) -> str:
    """What the agent said of a session: "say hello · compacting the conversation… · context 1,230
    of 1,000,000 tokens (0 %) · turn 0.027 USD · session 0.027 USD" ("" for nothing)."""
    parts = [f"“{field(row['title'], DESCRIPTION_LIMIT)}”"] if row.get("title") else []
    if row.get("compacting"):
        parts.append("compacting the conversation…")
    usage = row.get("usage")
    if usage:
        parts.append(f"context {usage['text']}")
        if usage["turn"]:
            parts.append(f"turn {field(usage['turn']['text'])}")
        if usage["cost"]:
            parts.append(f"session {field(usage['cost']['text'])}")
    return " · ".join(parts)


def cmd_sessions(args: argparse.Namespace) -> int:
    code, rows = fetch(args, api.SESSIONS)
    if rows is None:
        return code
    now = datetime.now(UTC)
    for row in rows:
        queued = f", {row['queued']} queued" if row["queued"] else ""
        name, cwd = field(row["name"]), field(row["cwd"], DESCRIPTION_LIMIT)
        session_id = field(row["session_id"] or "-")  # none yet: prompts wait for it to open
        doing = session_doing(row, now)
        if row["silent_since"]:
            doing.append(f"cancel it: {pasteable('cancel', row['agent'], '--session', row['name'])}")
        said = "".join(f" · {field(words, DESCRIPTION_LIMIT)}" for words in doing)  # one line a session
        out(f"{field(row['agent']):<14} {name:<12} {row['state']:<9} {session_id}{queued}  {cwd}{said}")
        facts = session_words(row)  # and what the agent said of it: title, compaction, usage
        if facts:
            out(f"{'':<14} {facts}")
    if not rows:
        out("no sessions yet")
    return 0


def cmd_cancel(args: argparse.Namespace) -> int:
    code, result = ask(api.CANCEL, api.CancelArgs(agent=args.agent, session=args.session, cwd=_cwd(args)))
    if result is not None:
        out("cancelling the running turn" if result["cancelled"] else "nothing was running")
    return code


def cmd_prompt(args: argparse.Namespace) -> int:
    prompt = api.PromptArgs(args.agent, " ".join(args.text), args.session, _cwd(args), wait=not args.no_wait)
    job: str | None = None
    interrupted = False

    def on_interrupt(signum: int, frame: object) -> None:
        """Ctrl+C: the first cancels this prompt's turn (reading goes on: the call is retried);
        the second, or one before the daemon has queued the prompt, stops waiting."""
        nonlocal interrupted
        if interrupted or job is None:
            raise KeyboardInterrupt
        interrupted = True
        say("cancelling (Ctrl+C again to stop waiting)")
        request(api.CANCEL, api.CancelArgs(job=job))

    previous = signal.signal(signal.SIGINT, on_interrupt)
    try:
        with call(api.PROMPT, prompt, timeout=PROMPT_TIMEOUT) as pending:
            for event in pending.events():
                job = event.job if isinstance(event, replies.Queued) else job
                _prompt_event(args, event)
            result = pending.reply()
    except NoDaemonError as exc:
        say(str(exc))
        return EXIT_NO_DAEMON
    except ReplyError as exc:
        say(str(exc))
        return EXIT_FAILED
    except KeyboardInterrupt:
        return STOP_EXIT["cancelled"]
    finally:
        signal.signal(signal.SIGINT, previous)
    return _prompt_result(args, result)


def _prompt_event(args: argparse.Namespace, event: replies.PromptEvent) -> None:
    if args.json:
        print_event(event)
        return
    match event:
        case replies.Chunk(text):
            sys.stdout.write(terminal_text(text))
            sys.stdout.flush()
            args.line_open = not text.endswith("\n")
        case replies.Dropped(text):
            say(text)
        case replies.Queued(ahead=ahead, session=session) if ahead:
            say(f"queued behind {ahead} prompt(s) in session {session}")


def _prompt_result(args: argparse.Namespace, result: replies.PromptDone | replies.PromptQueued) -> int:
    if args.json:
        print_json(result)
    if "session" in result:  # --no-wait: queued
        if not args.json:
            out(f"queued as prompt {result['job']} in session {result['session']}")
        return 0
    if getattr(args, "line_open", False):
        print()  # the reply did not end with a line break
    if result["error"]:
        say(f"the prompt failed: {result['error']}")
        return EXIT_FAILED
    stop = result["stop_reason"]
    if stop != "end_turn" and not args.json:
        say(f"the turn ended: {stop}")
    return STOP_EXIT.get(str(stop), EXIT_FAILED)
