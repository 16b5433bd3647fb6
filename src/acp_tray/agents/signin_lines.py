"""What an agent says to the person while its own sign-in waits: the lines it writes on stderr, or
on stdout instead of JSON-RPC, that carry a web address (gemini's "Please visit the following
URL…", codex's device page). acp-tray shows them (the CLI's `login`, a notice, the window) so the
person can open the page; they are untrusted text: terminal sequences and control characters
stripped, secrets redacted, bounded in length and number, and a link only for https (or http on
this machine's loopback).

An agent that writes its sign-in on stdout, the ACP channel, reads the answer from stdin as a
terminal program would (gemini's "Enter the authorization code:" through readline): `reads_code`
says so, and the code the person types is written to the agent's stdin as one line (see
`agents/host.py`), only while that sign-in waits.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Callable

from acp_tray.agents.stderr import plain
from acp_tray.control.replies import SIGN_IN_URL_LIMIT
from acp_tray.events import SignInLink
from acp_tray.logs.redact import redact, remember_secrets
from acp_tray.prefs.names import pasteable
from acp_tray.prefs.urls import openable

MAX_URL = SIGN_IN_URL_LIMIT
MAX_TEXT = 300  # characters of the line around it
MAX_LINES = 4  # the latest ones: an agent that retries prints its address again
MAX_CODE = 2048  # characters of a code the person types
_URL = re.compile(r"https?://[^\s<>\"'`]+", re.IGNORECASE)
# a line that tells of a failure names the address that failed (gemini: "request to https://… failed"), not a page
_FAILURE = re.compile(r"(?i)\b(?:fail(?:ed|ure)?|error|ENOTFOUND|ECONNREFUSED|ETIMEDOUT)\b")
_TRAILING = ".,;:!?)]}'\""


def found_url(line: str) -> str | None:
    """The first web address in `line` that may be a link (without the punctuation that ends a sentence)."""
    for match in _URL.finditer(line):
        url = match[0].rstrip(_TRAILING)
        if len(url) <= MAX_URL and openable(url):
            return url
    return None


def code_problem(code: str) -> str | None:
    """Why `code` cannot be handed to the agent as one line (None: it can)."""
    if not code.strip():
        return "the code is empty"
    if len(code) > MAX_CODE:
        return f"the code is longer than {MAX_CODE} characters"
    if any(ord(c) < 0x20 or ord(c) == 0x7F for c in code):
        return "the code has a line break or a control character in it; paste it as one line"
    return None


class SignInLines:
    """The lines with an address that an agent wrote during its current sign-in (none between)."""

    def __init__(self, on_change: Callable[[], None] = lambda: None) -> None:
        self._on_change = on_change
        self.lines: tuple[SignInLink, ...] = ()
        self.active = False
        self.changed = asyncio.Event()  # set at each new line; the waiter clears it

    def start(self) -> None:
        """A sign-in the agent does itself begins: its lines are kept from now on."""
        self.active, self.lines = True, ()
        self.changed.clear()

    def stop(self) -> None:
        """It ended (either way): what it said is no longer so."""
        had = bool(self.lines)
        self.active, self.lines = False, ()
        if had:
            self._on_change()

    @property
    def reads_code(self) -> bool:
        """It wrote its sign-in on stdout: it reads the answer from stdin, as on a terminal."""
        return any(line.on_stdout for line in self.lines)

    def refusal(self, agent: str, waiting: bool, code: str) -> str | None:
        """Why `code` is not typed to `agent` (its sign-in, if `waiting`, must have asked for one on
        stdout), in plain words; None: it is."""
        if not waiting or not self.active:
            return f"no sign-in to {agent} is under way; start one with `{pasteable('login', agent)}`"
        if not self.reads_code:
            return f"{agent} is not asking for a code; finish signing in where it sent you"
        problem = code_problem(code)
        return f"{problem}; nothing was sent to {agent}" if problem is not None else None

    def typed(self, code: str) -> None:
        """The person's code is on its way to the agent: kept out of every log and surface from now
        on (a terminal program echoes what it reads)."""
        remember_secrets([code.strip()])

    def heard(self, raw: bytes, stdout: bool) -> None:
        """A line the agent wrote on stderr, or on stdout instead of JSON-RPC (`stdout`)."""
        if not self.active:
            return
        text = plain(raw[: MAX_URL + MAX_TEXT].decode("utf-8", "replace")).strip()
        url = found_url(text)
        if url is None or _FAILURE.search(text):
            return
        words = redact(" ".join(text.replace(url, " ").split()))
        url = redact(url)
        if any(line.url == url for line in self.lines):
            return
        words = words if len(words) <= MAX_TEXT else words[:MAX_TEXT] + "…"
        self.lines = (*self.lines, SignInLink(words, url, stdout))[-MAX_LINES:]
        self.changed.set()
        self._on_change()
