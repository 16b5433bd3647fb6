"""The control API's replies, and the events streamed before one: what each op answers and
streams (its declaration in control/api.py names which). Standard library only, as the API itself."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar, Literal, NotRequired, TypedDict, final


class SignInMethodRow(TypedDict):
    id: str
    name: str
    kind: str  # agent | terminal | env_var | ...
    description: str | None
    vars: list[str]  # env_var: the environment variables it reads (their names)
    doable: NotRequired[bool]  # acp-tray can do it now
    command: NotRequired[list[str]]  # terminal: as it runs (its program by full path); none for a remote agent
    sets: NotRequired[dict[str, str]]  # terminal: the variables it sets, values for showing (secrets masked)
    unusable: NotRequired[str]  # why it cannot be used as the agent declared it (a NUL in its command...)


class CostRow(TypedDict):
    amount: float  # as the agent counts it
    currency: str  # as the agent sent it ("USD", "credits")
    text: str  # "0.027 USD"


class LimitRow(TypedDict):  # a rate limit as the agent last reported it
    kind: str  # the agent's name for it ("five_hour")
    name: str  # in words ("the five-hour limit")
    status: str  # allowed | allowed_warning | rejected | ...
    used: int | None  # percent used, when reported
    resets_at: str | None  # ISO 8601, when reported
    text: str  # "90 % of the five-hour limit used; resets at 14:20"


class UsageRow(TypedDict):  # a session's usage as the agent last reported it
    used: int  # tokens in its context window
    size: int  # the window's size in tokens
    text: str  # "1,230 of 1,000,000 tokens (0 %)"
    cost: CostRow | None  # the session's so far, where the agent reports one
    turn: CostRow | None  # the running (or last) turn's


class ProblemRow(TypedDict):  # an agent's last problem
    what: str  # what went wrong, in the daemon's words ("exited with code 1")
    stderr: list[str]  # the last lines it wrote on stderr then (redacted)
    time: str  # when, ISO 8601 with its offset
    crashes: int  # a crash: how many in a row (each within minutes of the last); 0 for another problem


class AgentRow(TypedDict):
    name: str
    kind: Literal["local", "remote"]
    target: str  # its command, or its URL (without secrets)
    command: list[str]  # a local agent's command as configured (empty for a remote one)
    cwd: str  # where a local agent runs, as configured ("" for the home directory)
    env_names: list[str]  # the names of the environment entries it is configured with (never their values)
    state: str  # events.AgentState's values
    detail: str
    sessions: int
    busy: int
    queued: int
    permission: str
    sign_in_methods: list[SignInMethodRow]
    needs_you: bool  # one of its sessions (or subagents) waits for the person, or a request of it is open
    today: list[CostRow]  # what it cost today, per currency (none: it reports no cost)
    limits: list[LimitRow]  # its rate limits as last reported
    sign_in_links: NotRequired[list[SignInLinkRow]]  # what it wrote to open while its own sign-in waits
    reads_code: NotRequired[bool]  # that sign-in reads a code on its input (`login.code`)
    problem: ProblemRow | None  # its last problem (kept after it runs again), or None


class OptionRow(TypedDict):
    id: str
    name: str
    kind: str


class ApprovalRow(TypedDict):
    id: str
    agent: str
    session_id: str
    title: str
    options: list[OptionRow]
    details: list[str]  # why, what it runs, touches, its kind: "Runs: make clean", ...
    subagent: str  # asked by a subagent (a child session of the agent's): its name; "" otherwise


class ChoiceRow(TypedDict):
    value: str  # what is sent
    label: str  # what the person reads


class FieldRow(TypedDict):
    """One field of a question's form, as a form or a prompt shows it."""

    name: str
    kind: str  # string | number | integer | boolean | array
    title: str  # its label ("" : use `name`)
    description: str  # its hint
    required: bool
    default: str | int | float | bool | list[str] | None
    choices: list[ChoiceRow]  # string: one of; array: any of
    minimum: float | None
    maximum: float | None
    min_length: int | None  # string: characters; array: items chosen
    max_length: int | None
    format: str  # email | uri | date | date-time | ""
    hint: str  # what it takes, in words ("a whole number from 1 to 10")


class QuestionRow(TypedDict):
    """A question waiting for the person. Never an answer; a page's address only as its host
    (the `questions` op alone gives the whole address, asked for by the person)."""

    id: str
    agent: str
    session_id: str
    mode: str  # form | url
    message: str
    host: str  # url: the host of the page it asks to have opened
    opens: bool  # url: acp-tray will open it (https://, or http:// on loopback)
    fields: list[FieldRow]
    timeout: float  # seconds it was given
    subagent: str  # asked by a subagent (a child session of the agent's): its name; "" otherwise


class QuestionDetail(QuestionRow):
    url: str  # url: the whole address


class AnsweredReply(TypedDict):
    id: str
    outcome: Literal["answered", "declined", "cancelled"]
    url: str  # an accepted page question: the address to open ("" otherwise)


class StatusReply(TypedDict):
    version: str
    pid: int
    uptime: float  # seconds
    preferences: str | None
    dnd: str
    morning: str  # "HH:MM": when "until tomorrow" ends (the `morning` preference)
    unread: int
    agents: list[AgentRow]
    approvals: list[ApprovalRow]
    questions: list[QuestionRow]
    today: list[CostRow]  # what today cost across agents, per currency


class SessionFacts(TypedDict):  # what the agent said of a session (as it last said it)
    title: str | None  # the agent's title for it ("say hello")
    compacting: bool  # the agent is compacting its conversation
    usage: UsageRow | None  # none reported yet


class SubagentRow(TypedDict):
    """A subagent: a child session the agent started under a session of ours."""

    session_id: str
    title: str  # as the agent names it ("" : none given)
    kind: str  # its role as the agent describes it ("general-purpose"; "" : none given)
    state: str  # as it last reported: running | requires_action | idle | unknown | newer ("" : not reported)
    needs_you: bool  # it waits for the person (its state, or an approval or a question of it open)


class SessionRow(SessionFacts):
    agent: str
    name: str
    cwd: str
    session_id: str | None
    state: Literal["detached", "running", "idle", "waiting"]  # waiting: prompts wait for it to open (a sign-in)
    queued: int
    turns: int
    updated: str  # when its session id was last kept (ISO 8601, UTC; "" for one not kept yet)
    needs_you: bool  # the agent waits for the person: it says so (`requires_action`), a subagent does,
    # or an approval or a question of the session (or of a subagent) is open
    progress: str  # the agent's own words on the running turn ("reconnecting, 3 of 5"); "" : none
    silent_since: str | None  # ISO 8601: the running turn's last word, once `[turns] silence_after` ago
    subagents: list[SubagentRow]


class AddedReply(TypedDict):
    name: str
    preferences: str


class NameReply(TypedDict):
    name: str


class WaitReply(TypedDict):
    connected: bool
    ready: bool  # connected and with its session (not waiting for a sign-in)
    state: str
    detail: str


class RemovedReply(TypedDict):
    name: str
    files: str | None  # where its installed files were
    deleted: int | None  # bytes freed
    problem: str | None  # why they could not be deleted


class StateReply(TypedDict):
    state: str
    detail: str


class TerminalSignIn(TypedDict):  # the caller runs it, then says how it went with `login.finished`
    kind: Literal["terminal"]
    method: str
    method_name: str
    argv: list[str]
    cwd: str
    env: dict[str, str]


class SignInStopped(TypedDict):  # `login.cancel`: what was done about the sign-in in flight
    name: str
    stopped: bool  # there was one
    detail: str  # in words: cancelled in the agent, or the agent restarted


class AgentSignIn(TypedDict):  # done by the daemon
    kind: Literal["agent"]
    method: str
    method_name: str
    state: str
    detail: str
    took: bool  # it needed a sign-in and now does not: only then is it "signed in"
    outcome: str  # what came of it, in words (when it did not take: why that is said)


@final
class PromptDone(TypedDict):
    job: str
    stop_reason: str | None
    error: str | None


@final
class PromptQueued(TypedDict):  # `wait: false`: queued at once, the session opens behind it
    job: str
    ahead: None
    session: str
    session_id: None


class CancelReply(TypedDict):
    cancelled: bool


class ApprovedReply(TypedDict):
    id: str
    option: str
    name: str
    kind: str


class DeniedReply(TypedDict):
    id: str
    option: str | None  # the rejecting option chosen; None: the request was cancelled


class PrefsReply(TypedDict):
    dnd: str
    preferences: str


class PrefsFormReply(TypedDict):  # `prefs.get`: every setting as a form shows it
    path: str | None  # the preferences file (None: running on built-in defaults, no file)
    version: str  # a token for the file's bytes: `prefs.set` refuses a change made from other ones
    values: dict[str, str | bool | list[str]]  # dotted key → text, true/false or a list (`env`: names only)
    defaults: dict[str, str | bool | list[str]]  # the same for the built-in defaults (no agents)
    choices: dict[str, list[str]]  # the settings that are one of a few words, with those words
    problem: str | None  # why the file cannot be read as it is (`values`: the settings in force)


class PrefsSavedReply(TypedDict):  # `prefs.set`: what a save led to, and the form to show after it
    saved: bool  # written and applied (or the file already said all this); false: nothing written, because
    problems: dict[str, str]  # of values not right: dotted key → what is wrong with it, in the file's words
    stale: bool  # or the file changed since the form's version (`overwrite` saves over it)
    failed: str  # or the file cannot be changed (there is none, or it cannot be read or written): why
    changed: list[str]  # the settings written (none: the file already said all this)
    sent: dict[str, str | bool | list[str]]  # the form's fields as the settings' values (shown again when not saved)
    form: PrefsFormReply  # every setting as the file says it now (after a save: its new values)


class DndReply(TypedDict):
    dnd: str  # as `status` says it: "off", "on", "on until Tue 08:00", "quiet hours until ..."
    until: str | None  # when it ends (ISO 8601), or None: off, or until switched off


class HistoryReply(TypedDict):
    records: list[dict[str, Any]]  # newest first, as `acp-tray history --json` prints them, each with its
    # "id" (stable while records are added and the files rotate)
    next: int | None  # `before` for the next (older) page; None: no more
    unread: int  # the tray's unread count


class UnreadReply(TypedDict):
    unread: int


class QuitReply(TypedDict):
    stopping: bool
    pid: int


class PushTargetRow(TypedDict):  # a push target, never its URL
    name: str
    service: str  # the Apprise URL's scheme: "ntfy", "json", "tgram", "pover", ...
    chosen: bool  # pushed to: `[push] targets` lists it, or lists none
    answers: Literal["on", "off", "one-way"]  # answered from the phone: on, off ([push] answers), never


class PushTestReply(TypedDict):  # `push.test`: one message sent
    name: str
    accepted: bool  # the service accepted it
    detail: str  # in words
    pressed: str | None  # `--answer`: the button pressed on the phone (None: none in time, or no buttons)


class CheckRow(TypedDict):  # one of `acp-tray doctor`'s checks (doctor/check.py), as `doctor --json` prints it
    name: str
    status: Literal["ok", "problem", "note"]
    detail: str
    fix: str  # what to do about it ("" when there is nothing to do)


# events streamed before a reply --------------------------------------------------------------------
# Frozen dataclasses, matched on by type. `kind` is an event's "event" on the wire; its fields are
# the object's other keys (a `SPREAD` field's keys are the object's own). control/streamed.py writes
# and reads them; each streaming op's declaration in control/api.py carries its union. The `watch` op's
# are in control/watch_events.py.

SPREAD: dict[str, Any] = {"spread": True}


@dataclass(frozen=True)
class Queued:  # `prompt`: the prompt is queued in its session
    kind: ClassVar[str] = "queued"
    job: str  # what `cancel` names
    ahead: int  # prompts before it in its session
    session: str
    session_id: str | None


@dataclass(frozen=True)
class Started:  # `prompt`: its turn started
    kind: ClassVar[str] = "started"
    session: str
    session_id: str


@dataclass(frozen=True)
class Chunk:  # `prompt`: reply text, as it comes
    kind: ClassVar[str] = "chunk"
    text: str


@dataclass(frozen=True)
class Dropped:  # `prompt`, to a client that reads too slowly: the rest of the reply is not sent (said once)
    kind: ClassVar[str] = "dropped"
    text: str


PromptEvent = Queued | Started | Chunk | Dropped


@dataclass(frozen=True)
class Waiting:
    """acp-tray waits: `login`, for an agent still starting or for its own sign-in (a browser);
    `push.add` and `push.remove`, for the OS keyring (its dialog). From this event on, a client waits
    for the reply without a time limit (the person may be typing a password)."""

    kind: ClassVar[str] = "waiting"
    text: str


SIGN_IN_URL_LIMIT = 4096  # characters of an address an agent gives to sign in (OAuth's are under 1 000)


class SignInLinkRow(TypedDict):
    text: str  # the agent's other words on the line (plain text, bounded)
    url: str  # https, or http on loopback


@dataclass(frozen=True)
class SignInSaid:  # `login`: the agent wrote an address to open (its sign-in page) while it waits
    kind: ClassVar[str] = "sign-in-link"
    text: str
    url: str
    reads_code: bool  # written on its terminal: it reads a code on its input there (`login.code` types it)


LoginEvent = Waiting | SignInSaid
