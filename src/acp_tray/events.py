"""Domain events: what the hosting layer reports, in arrival order, to presentation.

Events flow one way (agents -> presentation -> notifiers). Nothing here can reach an agent.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from typing import Literal

from acp_tray.agent_state import RUNNING_STATES as RUNNING_STATES  # declared on their own
from acp_tray.agent_state import AgentState as AgentState
from acp_tray.local_time import now as now
from acp_tray.local_time import stamp
from acp_tray.protocol.elicitation import Question as Question  # a domain value too
from acp_tray.protocol.notice import Notice
from acp_tray.protocol.session import PermissionOption as PermissionOption  # a domain value too
from acp_tray.protocol.session import ToolCallScope as ToolCallScope
from acp_tray.protocol.usage import Compaction as Compaction  # domain values too
from acp_tray.protocol.usage import RateLimit as RateLimit
from acp_tray.protocol.usage import Usage as Usage

Attention = Literal["", "approval", "sign-in", "answer"]
"""What a notice is to the person beyond its severity: "approval", a request an agent waits on
(`[dnd] allow = ["approvals"]` lets it through DND, and it is shown when DND ends); "sign-in", an
agent that waits for the person to sign in; "answer", the answer to what the person just did (shown
whatever the routes and DND say). An approval's or a sign-in's notification stays until it is
answered (`waits`), whatever its severity's popup timeout says."""


@dataclass(frozen=True, slots=True, eq=False)
class NoticeReceived:
    """A notice to present: from an agent, or acp-tray's own (`source="acp-tray"`) about an agent."""

    agent: str
    session_id: str
    notice: Notice
    time: datetime = dataclasses.field(default_factory=stamp)
    source: str = "agent"  # "agent" | "acp-tray"
    actions: tuple[tuple[str, str], ...] = ()  # (action id, label) a notification may offer
    commands: str = ""  # a line of the description: how to answer by command, left out where there are buttons
    attention: Attention = ""
    topic: str = ""  # a later notice of the same topic takes the earlier ones back (screen and Recent)
    subagent: str = ""  # from a child session of the agent's: the child's name ("Child check")
    replayed: bool = False  # sent inside a v1 `session/load`: history replayed, not live (never presented)
    incident: str = ""  # notices of one incident of the agent's share one notification, updated in place
    waits: float = 0.0  # an approval's or a sign-in's: seconds it waits for an answer (0: until answered)


@dataclass(frozen=True, slots=True, eq=False)
class NoticeMalformed:
    agent: str
    session_id: str | None
    field: str
    reason: str
    raw: object
    time: datetime = dataclasses.field(default_factory=stamp)


@dataclass(frozen=True, slots=True, eq=False)
class AgentStatus:
    agent: str
    state: AgentState
    detail: str = ""
    time: datetime = dataclasses.field(default_factory=stamp)


@dataclass(frozen=True, slots=True, eq=False)
class TurnEnded:
    """A prompt turn ended: `stop_reason` from the agent, or `error` when the prompt request failed."""

    agent: str
    session_id: str
    session: str  # the session's name in acp-tray
    stop_reason: str | None
    error: str | None = None
    time: datetime = dataclasses.field(default_factory=stamp)
    limit: RateLimit | None = None  # the error says the agent hit a rate or usage limit (refused)


@dataclass(frozen=True, slots=True)
class TurnStarted:
    """A prompt's turn started (told to whoever waits on that prompt, not to presentation)."""

    session: str  # the session's name in acp-tray
    session_id: str


@dataclass(frozen=True, slots=True)
class ReplyText:
    """More of the running turn's reply (told to whoever waits on that prompt, not to presentation)."""

    text: str


TurnProgress = TurnStarted | ReplyText  # what a prompt's waiter hears while its turn runs


@dataclass(frozen=True, slots=True, eq=False)
class QueueChanged:
    """A session's prompt queue changed: a prompt queued or taken out, a turn started or ended."""

    agent: str
    session_id: str
    session: str  # the session's name in acp-tray
    running: bool  # a turn is running
    queued: int  # prompts waiting behind it
    time: datetime = dataclasses.field(default_factory=stamp)


@dataclass(frozen=True, slots=True, eq=False)
class ActivityChanged:
    """What a session is doing changed beyond its queue: the agent's state ("waiting for you"),
    its subagents, its progress words, a silence (the session's `activity` holds the new state)."""

    agent: str
    session_id: str
    session: str  # the session's name in acp-tray
    time: datetime = dataclasses.field(default_factory=stamp)


@dataclass(frozen=True, slots=True, eq=False)
class PermissionAsked:
    """An agent asks to be allowed something; the person answers with `approval_id`."""

    agent: str
    session_id: str
    approval_id: str
    title: str
    options: tuple[PermissionOption, ...]
    timeout: float
    time: datetime = dataclasses.field(default_factory=stamp)
    touches: ToolCallScope = dataclasses.field(default_factory=ToolCallScope)
    description: str = ""  # why the agent asks (v2), in its words
    subagent: str = ""  # asked by a child session of the agent's: the child's name


@dataclass(frozen=True, slots=True, eq=False)
class PermissionSettled:
    """A permission request got its answer: `outcome` is an option id or "cancelled"; `by` says who."""

    agent: str
    session_id: str
    approval_id: str
    outcome: str
    by: str  # "person" | "phone:TARGET" (a push's button) | "policy" | "timeout" | "cancel" | "disconnect"
    time: datetime = dataclasses.field(default_factory=stamp)


@dataclass(frozen=True, slots=True, eq=False)
class QuestionAsked:
    """An agent asks the person a question (elicitation: a form, or a page to open); the person
    answers it with `question_id`, or it is cancelled after `timeout` seconds."""

    agent: str
    session_id: str
    question_id: str
    question: Question
    timeout: float
    time: datetime = dataclasses.field(default_factory=stamp)
    subagent: str = ""  # asked by a child session of the agent's: the child's name


QuestionOutcome = Literal["answered", "declined", "cancelled"]


@dataclass(frozen=True, slots=True, eq=False)
class QuestionSettled:
    """A question ended: how (never the values answered), and `by` whom or what."""

    agent: str
    session_id: str
    question_id: str
    outcome: QuestionOutcome
    by: str  # "person", "phone:TARGET", "timeout", "agent" (withdrew), "complete", "cancel", "disconnect"
    time: datetime = dataclasses.field(default_factory=stamp)


@dataclass(frozen=True, slots=True, eq=False)
class InputRequested:
    """An agent asked for input in a way acp-tray cannot show (`reason` says why), so it declined."""

    agent: str
    session_id: str
    message: str
    reason: str = ""
    time: datetime = dataclasses.field(default_factory=stamp)


@dataclass(frozen=True, slots=True, eq=False)
class AgentCrashed:
    """An agent exited unexpectedly. `retry_in` seconds until the restart; None: given up. `in_a_row`:
    crashes since it last ran stably (1: a new crash loop, if it is one)."""

    agent: str
    detail: str
    stderr: tuple[str, ...]
    retry_in: float | None
    in_a_row: int = 1
    time: datetime = dataclasses.field(default_factory=stamp)


@dataclass(frozen=True, slots=True, eq=False)
class SessionAttached:
    """A named session is ready: "new", "loaded", "resumed", or "replaced" (the old one was lost)."""

    agent: str
    session: str
    session_id: str
    how: str
    time: datetime = dataclasses.field(default_factory=stamp)


@dataclass(frozen=True, slots=True, eq=False)
class AgentUnusable:
    """The agent cannot be used until the person acts (an unsupported protocol version, a sign-in)."""

    agent: str
    title: str
    detail: str
    time: datetime = dataclasses.field(default_factory=stamp)


@dataclass(frozen=True, slots=True)
class SignInChoice:
    """One of the agent's sign-in methods, as the person is offered it."""

    method_id: str
    name: str
    kind: str  # agent | terminal | env_var | newer
    description: str
    doable: bool  # acp-tray can do it now (an env_var method: once its variables are set)
    needs: tuple[str, ...] = ()  # env_var: the variables it reads
    command: tuple[str, ...] = ()  # terminal: the command as it runs (its program's full path); none for a remote agent
    sets: tuple[tuple[str, str], ...] = ()  # terminal: the variables it sets, values for showing (secrets masked)
    unusable: str = ""  # why it cannot be used as the agent declared it (a NUL in its command...)


@dataclass(frozen=True, slots=True, eq=False)
class SignInNeeded:
    """The agent answered "authentication required": once per agent until a sign-in succeeds."""

    agent: str
    reason: str
    methods: tuple[SignInChoice, ...]
    time: datetime = dataclasses.field(default_factory=stamp)


@dataclass(frozen=True, slots=True)
class SignInLink:
    """An address the agent wrote while its own sign-in waits (cleaned: `agents/signin_lines.py`)."""

    text: str  # its other words on that line
    url: str
    on_stdout: bool = False  # written on stdout (its terminal, to it): it reads the answer there too


@dataclass(frozen=True, slots=True, eq=False)
class SignInOutput:
    """What the agent says about the sign-in under way: its lines with an address (all of them so
    far; none: the sign-in ended), and whether it reads a code on its input (`acp-tray login` asks)."""

    agent: str
    links: tuple[SignInLink, ...]
    reads_code: bool
    time: datetime = dataclasses.field(default_factory=stamp)


@dataclass(frozen=True, slots=True, eq=False)
class UsageReported:
    """A session's context window and cost as the agent reports them (and a vendor's rate limit)."""

    agent: str
    session_id: str
    usage: Usage
    time: datetime = dataclasses.field(default_factory=stamp)


@dataclass(frozen=True, slots=True, eq=False)
class SessionTitled:
    """The agent named its session (`title`), or cleared the name (None)."""

    agent: str
    session_id: str
    title: str | None
    time: datetime = dataclasses.field(default_factory=stamp)


@dataclass(frozen=True, slots=True, eq=False)
class CompactionChanged:
    """The agent is compacting a session's conversation, or finished doing so."""

    agent: str
    session_id: str
    compaction: Compaction
    time: datetime = dataclasses.field(default_factory=stamp)


SessionFact = UsageReported | SessionTitled | CompactionChanged

Event = (
    NoticeReceived
    | NoticeMalformed
    | AgentStatus
    | TurnEnded
    | QueueChanged
    | ActivityChanged
    | PermissionAsked
    | PermissionSettled
    | QuestionAsked
    | QuestionSettled
    | InputRequested
    | AgentCrashed
    | SessionAttached
    | AgentUnusable
    | SignInNeeded
    | SignInOutput
    | UsageReported
    | SessionTitled
    | CompactionChanged
)

EventSink = Callable[[Event], None]
