"""The control API, declared once: every op's name, its arguments and its reply (the replies'
types are in control/replies.py, the `watch` op's events in control/watch_events.py, the error
codes in control/errors.py; control/checking.py checks a request's arguments). Standard library
only: the daemon's server, the CLI and the window all import it, and the CLI must start fast.

On the wire (control/wire.py) a request is `{"v": 1, "op": NAME, "args": {...}}`; the args are
an op's `*Args` dataclass as a JSON object (unknown keys are ignored, `null` is the same as
absent), the events it streams before its reply are its declared events (control/streamed.py
writes and reads them), and its final reply's `result` is the op's reply type.
"""

from __future__ import annotations

import dataclasses
import typing
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Generic, Literal, Never, TypeVar

from acp_tray.control.checking import parse_args
from acp_tray.control.errors import ArgumentError
from acp_tray.control.replies import (
    AddedReply,
    AgentRow,
    AgentSignIn,
    AnsweredReply,
    ApprovalRow,
    ApprovedReply,
    CancelReply,
    CheckRow,
    DeniedReply,
    DndReply,
    HistoryReply,
    LoginEvent,
    NameReply,
    PrefsFormReply,
    PrefsReply,
    PrefsSavedReply,
    PromptDone,
    PromptEvent,
    PromptQueued,
    PushTargetRow,
    PushTestReply,
    QuestionDetail,
    QuitReply,
    RemovedReply,
    SessionRow,
    SignInStopped,
    StateReply,
    StatusReply,
    TerminalSignIn,
    UnreadReply,
    Waiting,
    WaitReply,
)
from acp_tray.control.streamed import read_event
from acp_tray.control.watch_events import WatchEvent
from acp_tray.protocol.text_rules import not_text

CONNECT_WAIT = 30.0  # seconds a prompt, or `agents.wait` by default, waits for an agent to connect
MAX_WAIT = 600.0  # the longest `agents.wait` (an npx agent's first start downloads it)


# arguments ------------------------------------------------------------------------------------
# A `str` is a non-empty string, a `list[str]` a non-empty list of strings, a `float` a number and
# an `int` a whole number (bounded by its field's `range`), a `Literal` one of its strings; `X | None`
# and fields with a default may be left out.


@dataclass(frozen=True)
class Args:
    """No arguments (and the base of every op's arguments)."""


@dataclass(frozen=True)
class NameArgs(Args):
    name: str  # the agent's


@dataclass(frozen=True)
class AddArgs(Args):  # a local agent (`command`) or a remote one (`url`): one of the two
    name: str
    command: list[str] | None = None
    url: str | None = None
    env: dict[str, str] = field(default_factory=dict)
    headers: dict[str, str] = field(default_factory=dict)  # sent with `url` ("${VAR}" from the environment)
    cwd: str | None = None  # where a local agent runs (default: the home directory)
    permission: Literal["ask", "reject", "allow"] | None = None  # its permission policy (default: ask)

    def __post_init__(self) -> None:
        if (self.command is None) == (self.url is None):
            raise ArgumentError("give a command (after --) or --url, one of the two")


@dataclass(frozen=True)
class ReplaceArgs(Args):  # a local agent's new command; its env entries given set, those in `unset` go
    name: str
    command: list[str]
    env: dict[str, str] = field(default_factory=dict)
    cwd: str | None = None  # where it runs from now on (default: where it ran)
    unset: list[str] | None = None  # env entries to remove


@dataclass(frozen=True)
class WaitArgs(Args):
    name: str
    command: list[str] | None = None  # wait for a run of this command (when given)
    timeout: float = field(default=CONNECT_WAIT, metadata={"range": (0.0, MAX_WAIT), "unit": "seconds"})


@dataclass(frozen=True)
class LoginArgs(Args):
    name: str
    method: str | None = None  # a sign-in method's id (default: the agent's only one)


@dataclass(frozen=True)
class LoginCodeArgs(Args):
    name: str
    code: str  # what the agent's sign-in page gave the person, for the agent that asked for it on its input


@dataclass(frozen=True)
class LoginFinishedArgs(Args):
    name: str
    method: str | None = None  # the terminal method that ran
    ok: bool = False  # it exited with 0: signed in


def session_name_problem(name: str | None) -> str | None:
    """Why `name` cannot name a session (it is kept in a file, sent to the agent's log lines, shown
    and typed again), or None: it must be text, without control characters."""
    problem = not_text(name) if name is not None else None
    if problem is None:
        return None
    return f"the session name must be text without control characters: {ascii(name)[:60]} {problem}"


def _check_session_name(name: str | None) -> None:
    problem = session_name_problem(name)
    if problem is not None:
        raise ArgumentError(problem)


@dataclass(frozen=True)
class PromptArgs(Args):
    agent: str
    text: str
    session: str | None = None  # its name (default: "default")
    cwd: str | None = None  # an absolute directory (default: the agent's)
    wait: bool = True  # stream the reply; false: queue it and answer at once

    def __post_init__(self) -> None:
        _check_session_name(self.session)


@dataclass(frozen=True)
class CancelArgs(Args):  # one prompt (`job`, from its `queued` event), or a session's running turn
    job: str | None = None
    agent: str | None = None
    session: str | None = None
    cwd: str | None = None

    def __post_init__(self) -> None:
        if self.job is None and self.agent is None:
            raise ArgumentError("'agent' must be a non-empty string")
        _check_session_name(self.session)


@dataclass(frozen=True)
class ApproveArgs(Args):
    id: str
    option: str | None = None  # an option's id or kind (default: the one that allows once)


@dataclass(frozen=True)
class DenyArgs(Args):
    id: str


@dataclass(frozen=True)
class AnswerArgs(Args):
    id: str  # the question's ("q1")
    values: dict[str, str | list[str]] = field(default_factory=dict)  # accept: field name → value as typed
    # open: a page question accepted and its page opened on the daemon's desktop (as its notification's Open)
    action: Literal["accept", "decline", "cancel", "open"] = "accept"

    def __post_init__(self) -> None:
        if self.values and self.action != "accept":
            raise ArgumentError("a question is answered with values, or declined or cancelled: not both")


@dataclass(frozen=True)
class DndArgs(Args):
    mode: Literal["off", "on", "for", "until"]  # on: until switched off
    value: str | None = None  # for: a duration ("30m", "1h", "tomorrow"); until: a time ("14:00", "tomorrow")

    def __post_init__(self) -> None:
        if self.mode in ("for", "until") and self.value is None:
            raise ArgumentError(f"'value' must be a non-empty string for mode {self.mode!r}")


@dataclass(frozen=True)
class PrefsSetArgs(Args):
    version: str | None = None  # `prefs.get`'s: the file as the form was made from it (None: there was none)
    fields: dict[str, list[str]] = field(default_factory=dict)  # the form's fields as sent: name → its texts
    overwrite: bool = False  # save over the file whatever its version now


@dataclass(frozen=True)
class PushNameArgs(Args):
    name: str  # a push target's


@dataclass(frozen=True)
class PushTestArgs(Args):
    name: str
    answer: bool = False  # a test approval with buttons; the reply says when a press arrived


ANSWER_TEST_WAIT = 300.0  # seconds `push test NAME --answer` waits for the press


@dataclass(frozen=True)
class PushAddArgs(Args):
    name: str
    url: str  # its Apprise URL (ntfy://…, json://…): a secret, kept in the OS keyring, never shown or logged


HISTORY_PAGE = 50  # records in a `history` page by default
MAX_HISTORY_PAGE = 200


@dataclass(frozen=True)
class HistoryArgs(Args):  # filters (all given must hold), and where the page starts
    agent: str | None = None  # the agent's name (acp-tray's own notices: "acp-tray")
    severity: Literal["error", "warning", "info", "other"] | None = None  # a severity class
    source: Literal["agent", "acp-tray"] | None = None  # who wrote the notice: an agent, or acp-tray
    text: str | None = None  # in the title, the description or the agent's name, ignoring case
    before: int | None = None  # a page's `next`: the records older than that one (an unknown id: none)
    limit: int = field(default=HISTORY_PAGE, metadata={"range": (1, MAX_HISTORY_PAGE)})


# the ops ---------------------------------------------------------------------------------------

A = TypeVar("A", bound=Args)
R = TypeVar("R", covariant=True)  # an op with a narrower reply is one with a wider
E = TypeVar("E", covariant=True)  # its events, likewise (Never: it streams none)


@dataclass(frozen=True)
class Op(Generic[A, R, E]):
    """One request: its name on the wire, its arguments' type, the types of the events it streams
    before its reply (none for most), and (for type checkers) its reply's and its events' union."""

    name: str
    args: type[A]
    summary: str
    events: tuple[type[E], ...] = ()

    def wire(self, args: A) -> dict[str, Any]:
        """The arguments as the request carries them."""
        return dataclasses.asdict(args)

    def parse(self, raw: Mapping[str, Any]) -> A:
        """The request's arguments checked against the declaration; ArgumentError names the one
        that is missing or wrong (or says which do not fit together)."""
        return parse_args(self.args, raw)

    def event(self, message: Mapping[str, Any]) -> E:
        """A streamed event as the op declares it; streamed.EventError says what is wrong with one
        that is not."""
        return read_event(self.name, self.events, message)


def streams(union: Any) -> tuple[type[Any], ...]:
    """The event types of a union declared in control/replies.py or watch_events.py, for an op's `events`."""
    return typing.get_args(union) or (union,)


STATUS: Op[Args, StatusReply, Never] = Op("status", Args, "the daemon, its agents, DND and approvals waiting")
AGENTS_LIST: Op[Args, list[AgentRow], Never] = Op("agents.list", Args, "the configured agents and their state")
APPROVALS: Op[Args, list[ApprovalRow], Never] = Op("approvals", Args, "permission requests waiting for the person")
SESSIONS: Op[Args, list[SessionRow], Never] = Op("sessions", Args, "named sessions: live and remembered")
AGENTS_ADD: Op[AddArgs, AddedReply, Never] = Op("agents.add", AddArgs, "add an agent to the preferences; it starts")
AGENTS_REPLACE: Op[ReplaceArgs, NameReply, Never] = Op(
    "agents.replace", ReplaceArgs, "a new command (working directory, environment) for an agent"
)
AGENTS_WAIT: Op[WaitArgs, WaitReply, Never] = Op("agents.wait", WaitArgs, "wait until an agent has connected")
AGENTS_REMOVE: Op[NameArgs, RemovedReply, Never] = Op("agents.remove", NameArgs, "stop and remove an agent")
AGENTS_RESTART: Op[NameArgs, NameReply, Never] = Op("agents.restart", NameArgs, "restart an agent")
AGENTS_STOP: Op[NameArgs, NameReply, Never] = Op(
    "agents.stop", NameArgs, "stop an agent (until started, as the tray's Stop)"
)
AGENTS_START: Op[NameArgs, NameReply, Never] = Op("agents.start", NameArgs, "start a stopped agent")
LOGIN: Op[LoginArgs, TerminalSignIn | AgentSignIn, LoginEvent] = Op(
    "login", LoginArgs, "sign in to an agent", streams(LoginEvent)
)
LOGIN_FINISHED: Op[LoginFinishedArgs, StateReply, Never] = Op(
    "login.finished", LoginFinishedArgs, "a terminal sign-in ran: how it went"
)
LOGIN_CANCEL: Op[NameArgs, SignInStopped, Never] = Op(
    "login.cancel", NameArgs, "stop waiting for an agent's own sign-in: cancelled in it (restarted if it stays in it)"
)
LOGIN_CODE: Op[LoginCodeArgs, NameReply, Never] = Op(
    "login.code", LoginCodeArgs, "the code an agent's sign-in asks for on its input, typed there as one line"
)
LOGOUT: Op[NameArgs, NameReply, Never] = Op("logout", NameArgs, "sign out of an agent")
PROMPT: Op[PromptArgs, PromptDone | PromptQueued, PromptEvent] = Op(
    "prompt", PromptArgs, "send a prompt; stream the reply", streams(PromptEvent)
)
CANCEL: Op[CancelArgs, CancelReply, Never] = Op("cancel", CancelArgs, "cancel a prompt, or a session's running turn")
APPROVE: Op[ApproveArgs, ApprovedReply, Never] = Op("approve", ApproveArgs, "answer a permission request")
DENY: Op[DenyArgs, DeniedReply, Never] = Op("deny", DenyArgs, "reject a permission request")
QUESTIONS: Op[Args, list[QuestionDetail], Never] = Op(
    "questions", Args, "questions waiting for the person (a form or a page)"
)
ANSWER: Op[AnswerArgs, AnsweredReply, Never] = Op(
    "answer", AnswerArgs, "answer a question (values checked against its form), decline it or cancel it"
)
PREFS_APPLY: Op[Args, PrefsReply, Never] = Op("prefs.apply", Args, "apply the preferences file now")
PREFS_GET: Op[Args, PrefsFormReply, Never] = Op("prefs.get", Args, "every setting of the preferences file, for a form")
PREFS_SET: Op[PrefsSetArgs, PrefsSavedReply, Never] = Op(
    "prefs.set", PrefsSetArgs, "save a form (typed and checked as the file is; written with comments kept), apply it"
)
DND_SET: Op[DndArgs, DndReply, Never] = Op("dnd.set", DndArgs, "switch do not disturb (written to the preferences)")
HISTORY: Op[HistoryArgs, HistoryReply, Never] = Op(
    "history", HistoryArgs, "the history, newest first, a page at a time"
)
READ: Op[Args, UnreadReply, Never] = Op("read", Args, "mark all read (the tray's unread count)")
QUIT: Op[Args, QuitReply, Never] = Op("quit", Args, "stop the daemon")
DIAGNOSTICS: Op[Args, list[CheckRow], Never] = Op(
    "diagnostics", Args, "`acp-tray doctor`'s checks as the daemon sees them (with its tray backend)"
)
PUSH_LIST: Op[Args, list[PushTargetRow], Never] = Op(
    "push.list", Args, "the push targets (names and services, never URLs)"
)
PUSH_ADD: Op[PushAddArgs, PushTargetRow, Waiting] = Op(
    "push.add",
    PushAddArgs,
    "keep a push target's Apprise URL in the OS keyring (replacing one of that name)",
    streams(Waiting),
)
PUSH_TEST: Op[PushTestArgs, PushTestReply, Never] = Op(
    "push.test", PushTestArgs, "push one message to a target: whether its service accepted it (and a press arrived)"
)
PUSH_REMOVE: Op[PushNameArgs, NameReply, Waiting] = Op(
    "push.remove", PushNameArgs, "forget a push target (and its URL)", streams(Waiting)
)
WATCH: Op[Args, None, WatchEvent] = Op(
    "watch", Args, "a snapshot of the state, then each change, until the client goes", streams(WatchEvent)
)

# the ops that act on one agent by a verb (the CLI's `agents VERB NAME`, the window's buttons), and
# what the person is told once the daemon has taken it
AGENT_VERBS: dict[str, tuple[Op[NameArgs, NameReply, Never], str]] = {
    "restart": (AGENTS_RESTART, "restarting"),
    "stop": (AGENTS_STOP, "stopped"),
    "start": (AGENTS_START, "starting"),
}

OPS: tuple[Op[Any, Any, Any], ...] = (
    STATUS, AGENTS_LIST, APPROVALS, SESSIONS, AGENTS_ADD, AGENTS_REPLACE, AGENTS_WAIT, AGENTS_REMOVE,
    AGENTS_RESTART, AGENTS_STOP, AGENTS_START, LOGIN, LOGIN_FINISHED, LOGOUT, PROMPT, CANCEL, APPROVE, DENY,
    PREFS_APPLY, PREFS_GET, PREFS_SET, DND_SET, HISTORY, READ, QUIT, DIAGNOSTICS, WATCH,
    LOGIN_CANCEL, LOGIN_CODE,
    PUSH_LIST, PUSH_ADD, PUSH_TEST, PUSH_REMOVE, QUESTIONS, ANSWER,
)  # fmt: skip
