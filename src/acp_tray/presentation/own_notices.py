"""acp-tray's own notices: what a person waiting on an agent needs to know, from hosting events.

Pure: an event in, a notice (with the buttons a notification may offer) or nothing out. These
are presented with `source = "acp-tray"` through the same routing, DND and history as agent
notices. A turn the person cancelled never gets here (see `agents/turns.py`). Titles do not repeat
the agent's name: every surface shows it in front ("demo: Finished").
"""

from __future__ import annotations

from dataclasses import dataclass

from acp_tray.events import (
    AgentCrashed,
    AgentUnusable,
    Attention,
    Event,
    InputRequested,
    PermissionAsked,
    PermissionSettled,
    QuestionAsked,
    QuestionSettled,
    SessionAttached,
    SignInNeeded,
    SignInOutput,
    TurnEnded,
)
from acp_tray.logs.text import NAME_LIMIT, asker, plain_line
from acp_tray.prefs.names import pasteable, shell_line, shown_sets
from acp_tray.presentation.actions import ApprovalAnswer, SignIn
from acp_tray.presentation.approval_details import REQUEST_SHOWN, approval_details
from acp_tray.presentation.limits import limit_line
from acp_tray.presentation.options import option_label
from acp_tray.presentation.question_notice import answered_by, question_notice
from acp_tray.presentation.when import span_words
from acp_tray.protocol.auth import TERMINAL
from acp_tray.protocol.notice import Notice

DOABLE_KINDS = ("agent", "terminal")  # listed plainly; other kinds are listed with their kind

STOPPED_EARLY = {
    "max_tokens": "Stopped: token limit reached",
    "max_turn_requests": "Stopped: too many requests in one turn",
    "refusal": "Refused to continue",
}


def stop_words(stop_reason: str | None) -> str:
    """How a turn ended, in a person's words (the window's reply to a prompt)."""
    if stop_reason == "end_turn":
        return "Done"
    if stop_reason == "cancelled":
        return "Cancelled"
    return STOPPED_EARLY.get(stop_reason or "", f"Stopped: {stop_reason or 'no reason given'}")


@dataclass(frozen=True)
class OwnNotice:
    agent: str
    session_id: str
    notice: Notice
    actions: tuple[tuple[str, str], ...] = ()
    finished: bool = False  # a turn's "Finished": no pop-up for a short turn ([turns] notify_after)
    commands: str = ""  # a line of the description, left out where the notification has buttons
    attention: Attention = ""
    incident: str = ""  # notices of one incident update one notification in place (a crash loop)
    waits: float = 0.0  # a request's wait for an answer, in seconds (0: until answered)
    topic: str = ""  # a later notice of the same topic takes this one back


def sign_in_topic(agent: str) -> str:
    """The topic of what is said about a sign-in to `agent` under way: each says what is so now."""
    return f"sign-in:{agent}"


def sign_in_need_topic(agent: str) -> str:
    """The topic of "Sign in to AGENT": taken back once the agent is connected."""
    return f"sign-in-needed:{agent}"


def _session(name: str) -> str:
    return "" if name == "default" else f" (session {name})"


def own_notice(event: Event) -> OwnNotice | None:
    """What acp-tray itself says of `event`, if anything."""
    if isinstance(event, TurnEnded):
        return _turn(event)
    if isinstance(event, PermissionAsked):
        return _approval(event)
    if isinstance(event, (QuestionAsked, QuestionSettled)):
        return _question(event)
    if isinstance(event, AgentCrashed):
        return _crash(event)
    if isinstance(event, SignInNeeded):
        return _sign_in(event)
    return _said_of(event)


def _said_of(event: Event) -> OwnNotice | None:
    """The notices of one line or two, said of an event acp-tray reports as it is."""
    if isinstance(event, PermissionSettled) and event.by == "timeout":
        text = f"Nobody answered request {event.approval_id} in time, so it was answered 'cancelled'."
        return _said(event.agent, event.session_id, "warning", "Approval timed out", text)
    if isinstance(event, InputRequested):
        why = event.reason or "acp-tray cannot show it"
        text = f"{event.message}\nIt was declined: {why}. Answer the agent another way."
        return _said(event.agent, event.session_id, "warning", "Asked for input", text)
    if isinstance(event, AgentUnusable):
        return _said(event.agent, "", "error", event.title, event.detail)
    if isinstance(event, SignInOutput) and event.links:
        return _sign_in_page(event)
    if isinstance(event, SessionAttached) and event.how == "replaced":
        text = f"Session '{event.session}' could not be reattached, so it starts without the earlier conversation."
        return _said(event.agent, event.session_id, "info", "Started a new session", text)
    return None


def answered_from_phone(event: PermissionSettled) -> Notice:
    """An approval answered with a push's button, for the history only (the desk shows it settled)."""
    text = f"Request {event.approval_id} was answered '{event.outcome}' {answered_by(event.by)}."
    return Notice("info", "Answered from the phone", text)


def _approval(event: PermissionAsked) -> OwnNotice:
    """The request first, as the agent put it ("NAME wants to: TITLE", what it touches), then when
    it is cancelled; the commands that answer it last, for the surfaces without buttons."""
    lines = [f"{asker(event.agent, event.subagent)} wants to: {plain_line(event.title, REQUEST_SHOWN)}"]
    lines += approval_details(event.touches, event.description)
    lines.append(f"No answer in {span_words(event.timeout)}: cancelled.")
    commands = f"{pasteable('approve', event.approval_id)} · {pasteable('deny', event.approval_id)}"
    notice = Notice("warning", "Needs approval", "\n".join([*lines, commands]))
    actions = tuple(
        (ApprovalAnswer(event.approval_id, o.option_id).encode(), option_label(o.name, o.kind, NAME_LIMIT))
        for o in event.options
    )
    return OwnNotice(
        event.agent, event.session_id, notice, actions, commands=commands, attention="approval", waits=event.timeout
    )


def _question(event: QuestionAsked | QuestionSettled) -> OwnNotice | None:
    """A question asked ("NAME asks: …", answered like an approval), or one that timed out."""
    if isinstance(event, QuestionAsked):
        notice, actions, commands = question_notice(event)
        return OwnNotice(
            event.agent, event.session_id, notice, actions, commands=commands, attention="approval", waits=event.timeout
        )
    if event.by == "timeout":
        text = f"Nobody answered question {event.question_id} in time, so it was cancelled."
        return _said(event.agent, event.session_id, "warning", "Question timed out", text)
    return None


def _said(agent: str, session_id: str, severity: str, title: str, description: str | None = None) -> OwnNotice:
    return OwnNotice(agent, session_id, Notice(severity, title, description))


def _turn(event: TurnEnded) -> OwnNotice | None:
    where = _session(event.session)
    if event.limit is not None:  # refused for a limit: which, and when it lets the agent work again
        notice = Notice("error", limit_line(event.limit, event.time), f"The prompt{where} failed: {event.error}")
    elif event.error is not None:
        notice = Notice("error", f"Prompt failed{where}", event.error)
    elif event.stop_reason == "end_turn":
        notice = Notice("info", f"Finished{where}", "The turn ended; ready for the next prompt.")
        return OwnNotice(event.agent, event.session_id, notice, finished=True)
    elif event.stop_reason in STOPPED_EARLY:
        notice = Notice("warning", f"{STOPPED_EARLY[event.stop_reason]}{where}")
    elif event.stop_reason == "cancelled" or event.stop_reason is None:
        return None
    else:
        notice = Notice("warning", f"Stopped{where}", f"Stop reason: {event.stop_reason}")
    return OwnNotice(event.agent, event.session_id, notice)


CRASH = "crash"  # the incident of a crash loop: one notification, updated at each restart, then its end
STDERR_SHOWN = 5


def without_hint(detail: str) -> str:
    """A status detail without the stderr hint it ends with ("exit code 1; last stderr: a | b"): the
    crash notice lists those lines itself."""
    for marker in ("; last stderr: ", "; last output: "):
        detail = detail.split(marker, 1)[0]
    return detail


def crash_reason(event: AgentCrashed) -> str:
    """What makes two crash loops the same to a person: how it ended and what it said last."""
    return "\n".join([without_hint(event.detail), *event.stderr[-STDERR_SHOWN:]])


def _crash(event: AgentCrashed) -> OwnNotice:
    """One notification per crash loop, updated in place at each restart (counted), then saying it
    stopped, with its last stderr lines once."""
    if event.retry_in is not None:  # its detail ends with its last stderr lines, in one line
        description = f"{event.detail}. Restarting in {span_words(event.retry_in)}."
        return OwnNotice(event.agent, "", Notice("warning", "Crashed", description), incident=CRASH)
    detail = without_hint(event.detail) if event.stderr else event.detail  # the lines are listed below
    lines = [
        f"{detail}. It crashed {event.in_a_row} times in a row, each soon after starting, so it was left stopped.",
        f"Restart it from the tray or with `{pasteable('agents', 'restart', event.agent)}`.",
    ]
    if event.stderr:
        lines += ["Last lines of its stderr:", *event.stderr[-STDERR_SHOWN:]]
    notice = Notice("error", "Keeps crashing; stopped", "\n".join(lines))
    return OwnNotice(event.agent, "", notice, incident=CRASH)


def _quoted(names: list[str]) -> str:
    quoted = [f"“{name}”" for name in names]
    return quoted[0] if len(quoted) == 1 else f"{', '.join(quoted[:-1])} or {quoted[-1]}"


def _sign_in(event: SignInNeeded) -> OwnNotice:
    """One notice per agent: a button per method acp-tray can do now, and the body leads with those
    buttons' words, then the command that does the same (left out where there are buttons; early,
    as a bounded body keeps its start); every method listed (servers without buttons, the history)."""
    agent = event.agent
    doable = [m for m in event.methods if m.doable]
    commands = ""
    if doable:
        how = f"Choose {_quoted([m.name for m in doable])} to sign in."
        method = doable[0].method_id if len(doable) == 1 else "METHOD"
        commands = f"Or run `{pasteable('login', agent, method)}`" + (" with one of these." if len(doable) > 1 else ".")
    elif not event.methods:  # nothing acp-tray could run: the agent's own words say how
        how = f"Sign in {agent}'s own way, as it says below, then run `{pasteable('agents', 'restart', agent)}`."
    else:
        how = f"acp-tray cannot sign in for you yet: see `{pasteable('login', agent)} METHOD`."
    lines = [how, commands] if commands else [how]
    for m in event.methods:
        line = f"• {m.name} ({m.method_id})" + (f": {m.description}" if m.description else "")
        if m.needs and not m.doable:
            secret, login = pasteable("agents", "secret", agent, m.needs[0]), pasteable("login", agent, m.method_id)
            line += f" — `{secret}`, then `{login}`"
        elif m.kind not in DOABLE_KINDS and not m.doable:
            line += f" [{m.kind}]"
        if m.unusable:
            line += f" — cannot be used: {m.unusable}"
        elif m.command:  # as it runs: the program found by its full path, and the variables it sets
            line += f" — runs `{shell_line(m.command)}`{shown_sets(dict(m.sets))}"
        elif m.kind == TERMINAL:  # a remote agent's: its command is not acp-tray's to run
            line += " — sign in where the agent runs"
        lines.append(line)
    lines.append(f"The agent said: {event.reason}")
    notice = Notice("warning", f"Sign in to {agent}", "\n".join(lines))
    actions = tuple((SignIn(agent, m.method_id).encode(), m.name) for m in doable)
    return OwnNotice(
        agent, "", notice, actions, commands=commands, attention="sign-in", topic=sign_in_need_topic(agent)
    )


def _sign_in_page(event: SignInOutput) -> OwnNotice:
    """The address the agent gave to sign in (its latest), first: the rest of a bounded body may go."""
    link = event.links[-1]
    lines = [f"Open this page to finish signing in to {event.agent}:", link.url]
    if event.reads_code:
        lines.append("Then enter the code it gives you where you started the sign-in (acp-tray login asks for it).")
    if link.text:
        lines.append(f"{event.agent} said: {link.text}")
    notice = Notice("info", "Sign-in page", "\n".join(lines))
    return OwnNotice(event.agent, "", notice, attention="answer", topic=sign_in_topic(event.agent))
