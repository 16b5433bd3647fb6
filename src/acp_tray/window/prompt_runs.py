"""Prompts sent from the sessions page: each one `prompt` request to the daemon, read on a thread of
its own (the reply streams for as long as the turn takes), its reply so far kept for the page that
follows it. Nothing else is kept: a finished run is let go after the next few."""

from __future__ import annotations

import asyncio
import itertools
import threading
from dataclasses import dataclass, field

from acp_tray.control import api, replies
from acp_tray.control.client import NoDaemonError, ReplyError, request
from acp_tray.presentation.own_notices import stop_words
from acp_tray.window.daemon_calls import failed

KEPT = 16  # finished runs kept, for a page that connects after the turn ended (a quick reply)


@dataclass(frozen=True)
class Ended:
    words: str  # "Done", "Cancelled", "The prompt failed: ..."
    problem: bool


@dataclass
class PromptRun:
    """One prompt and its reply as far as it came. Changed only on the window's event loop."""

    id: str
    args: api.PromptArgs
    job: str | None = None  # from the `queued` event: what Cancel names
    session_id: str | None = None
    ahead: int = 0  # prompts before it in its session, when queued
    started: bool = False
    chunks: list[str] = field(default_factory=list)
    ended: Ended | None = None
    changed: asyncio.Event = field(default_factory=asyncio.Event)  # set (and replaced) on each change

    @property
    def text(self) -> str:
        return "".join(self.chunks)

    @property
    def status(self) -> str:
        if self.ended is not None:
            return self.ended.words
        if self.started:
            return "Working…"
        if self.job is not None and self.ahead:
            return f"Waiting behind {self.ahead} prompt{'s' if self.ahead > 1 else ''} in this session…"
        return "Opening the session…" if self.job is None else "Sending…"

    def take(self, event: replies.PromptEvent) -> None:
        match event:
            case replies.Queued(job, ahead, _, session_id):
                self.job, self.session_id, self.ahead = job, session_id, ahead
            case replies.Started(_, session_id):
                self.started, self.session_id = True, session_id or self.session_id
            case replies.Chunk(text):
                self.chunks.append(text)
            case replies.Dropped(text):
                self.chunks.append(f"\n[{text}]\n")
        self._changed()

    def end(self, reply: replies.PromptDone | None, error: str | None) -> None:
        if reply is not None and reply["error"]:
            error = reply["error"]
        if error is not None:
            self.ended = Ended(f"The prompt failed: {error}", True)
        else:
            stop = reply["stop_reason"] if reply is not None else None
            self.ended = Ended(stop_words(stop), stop not in ("end_turn", "cancelled"))
        self._changed()

    def _changed(self) -> None:
        self.changed.set()
        self.changed = asyncio.Event()


class PromptRuns:
    def __init__(self) -> None:
        self._runs: dict[str, PromptRun] = {}
        self._ids = itertools.count(1)

    def get(self, run_id: str) -> PromptRun | None:
        return self._runs.get(run_id)

    def start(self, args: api.PromptArgs) -> PromptRun:
        run = PromptRun(str(next(self._ids)), args)
        self._runs[run.id] = run
        finished = [key for key, kept in self._runs.items() if kept.ended is not None]
        for key in finished[: max(0, len(finished) - KEPT)]:
            del self._runs[key]
        loop = asyncio.get_running_loop()
        # a daemon thread: a turn that runs on must not hold the window's exit
        threading.Thread(target=_read, args=(run, loop), name=f"acp-tray-window-prompt-{run.id}", daemon=True).start()
        return run


def _read(run: PromptRun, loop: asyncio.AbstractEventLoop) -> None:
    """The request, on its thread: each event and then the end handed to the event loop."""
    reply: replies.PromptDone | None = None
    error: str | None = None

    def hand_over(event: replies.PromptEvent) -> None:
        loop.call_soon_threadsafe(run.take, event)

    try:
        result = request(api.PROMPT, run.args, on_event=hand_over, timeout=None)
        reply = result if "stop_reason" in result else None
    except (NoDaemonError, ReplyError) as exc:
        error = str(failed(exc))
    except OSError as exc:
        error = f"the connection to acp-tray broke ({exc})"
    loop.call_soon_threadsafe(run.end, reply, error)
