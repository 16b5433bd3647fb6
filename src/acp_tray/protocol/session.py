"""ACP v1 session messages acp-tray sends (prompt, cancel, load, resume) and the agent requests it reads
(capabilities, permission, elicitation), as plain data. Pure: no I/O; tolerant of agent input."""

from __future__ import annotations

import shlex
from dataclasses import dataclass
from typing import Any

from acp_tray.protocol.auth import AuthMethod, can_log_out, parse_auth_methods
from acp_tray.protocol.errors import error_words, means_auth_required
from acp_tray.protocol.text_rules import not_text
from acp_tray.protocol.version import ProtocolVersion

STOP_REASONS = ("end_turn", "max_tokens", "max_turn_requests", "refusal", "cancelled")
ALLOW_KINDS = ("allow_once", "allow_always")
REJECT_KINDS = ("reject_once", "reject_always")
TITLE_KEPT = 1000  # characters of a permission request's title kept (an agent line may be 4 MB)
OPTIONS_KEPT = 50
PATHS_KEPT = 10  # paths of a tool call kept for the person to see
SCOPE_KEPT = 1000  # characters of a path or a command kept
SESSION_ID_MAX = 1000  # characters: acp-tray keeps an agent's session ids in a file and shows them


def session_id_problem(session_id: str) -> str | None:
    """Why an agent's new session id cannot be used (acp-tray keeps it, shows it and sends it
    back), or None: empty, too long, a lone surrogate or a NUL (`text_rules.not_text`; other
    control characters are cleaned where it is shown)."""
    if not session_id:
        return "is empty"
    if len(session_id) > SESSION_ID_MAX:
        return f"is longer than {SESSION_ID_MAX} characters"
    return not_text(session_id, controls=False)


def prompt_params(session_id: str, text: str) -> dict[str, Any]:
    return {"sessionId": session_id, "prompt": [{"type": "text", "text": text}]}


def cancel_params(session_id: str) -> dict[str, Any]:
    return {"sessionId": session_id}


def load_session_params(session_id: str, cwd: str) -> dict[str, Any]:
    return {"sessionId": session_id, "cwd": cwd, "mcpServers": []}


def resume_session_params(session_id: str, cwd: str) -> dict[str, Any]:
    return {"sessionId": session_id, "cwd": cwd}


@dataclass(frozen=True, slots=True)
class PermissionOption:
    option_id: str
    name: str
    kind: str  # allow_once | allow_always | reject_once | reject_always | anything newer


@dataclass(frozen=True)
class AgentCapabilities:
    """What we use of the agent's `initialize` answer."""

    load_session: bool = False
    resume_session: bool = False
    close_session: bool = False
    name: str | None = None
    auth_methods: tuple[AuthMethod, ...] = ()
    logout: bool = False  # the agent can sign out (v1: `auth.logout`; v2: it offers methods)


def agent_capabilities(initialize_result: object) -> AgentCapabilities:
    """v1: `agentCapabilities.loadSession` (bool), `agentCapabilities.sessionCapabilities.resume|close` ({}),
    `agentInfo`. v2: `capabilities`, `info`; `session/resume` and `session/close` are baseline
    there, and there is no `session/load`. Both: `authMethods`."""
    if not isinstance(initialize_result, dict):
        return AgentCapabilities()
    v2 = initialize_result.get("protocolVersion") == 2
    capabilities = initialize_result.get("capabilities" if v2 else "agentCapabilities")
    capabilities = capabilities if isinstance(capabilities, dict) else {}
    session = capabilities.get("sessionCapabilities")
    session = session if isinstance(session, dict) else {}
    info = initialize_result.get("info" if v2 else "agentInfo")
    info = info if isinstance(info, dict) else {}
    name = next((v for v in (info.get("title"), info.get("name")) if isinstance(v, str) and v.strip()), None)
    return AgentCapabilities(
        load_session=not v2 and capabilities.get("loadSession") is True,
        resume_session=v2 or isinstance(session.get("resume"), dict),
        close_session=v2 or isinstance(session.get("close"), dict),
        name=name,
        auth_methods=parse_auth_methods(initialize_result.get("authMethods")),
        logout=can_log_out(initialize_result, ProtocolVersion.V2 if v2 else ProtocolVersion.V1),
    )


@dataclass(frozen=True, slots=True)
class ToolCallScope:
    """What a tool call asking permission touches, as the agent described it: its kind ("edit",
    "execute", ...), the paths it names, and for an execute the command it would run."""

    kind: str = ""
    paths: tuple[str, ...] = ()
    command: str = ""


@dataclass(frozen=True)
class PermissionRequest:
    session_id: str
    title: str
    options: tuple[PermissionOption, ...]
    scope: ToolCallScope = ToolCallScope()
    description: str = ""  # v2: why the agent asks, in its words


def tool_call_scope(tool_call: dict[str, Any]) -> ToolCallScope:
    """The scope of a v1 `toolCall`: `kind`, the `path` of its `locations` and of its diffs, and a
    `command` in its `rawInput` (text, or a list of arguments); anything else is left out."""
    kind = tool_call.get("kind")
    paths: list[str] = []
    for key, only in (("locations", None), ("content", "diff")):
        items = tool_call.get(key)
        for item in items if isinstance(items, list) else []:
            if len(paths) == PATHS_KEPT:  # the rest is not shown: never looked at (an agent may send 100,000)
                break
            path = item.get("path") if isinstance(item, dict) and only in (None, item.get("type")) else None
            if isinstance(path, str) and path.strip() and path[:SCOPE_KEPT] not in paths:
                paths.append(path[:SCOPE_KEPT])
    raw = tool_call.get("rawInput")
    command = raw.get("command") if isinstance(raw, dict) else None
    if isinstance(command, list) and all(isinstance(part, str) for part in command):
        command = shlex.join(command)
    return ToolCallScope(
        kind if isinstance(kind, str) else "",
        tuple(paths),
        command[:SCOPE_KEPT] if isinstance(command, str) else "",
    )


def _subject(params: dict[str, Any]) -> tuple[dict[str, Any], ToolCallScope | None]:
    """The tool call a permission request is about (v1: `toolCall`; v2: `subject.toolCall` of a
    `tool_call` subject), and for a v2 `command` subject the scope it names itself."""
    subject = params.get("subject")
    subject = subject if isinstance(subject, dict) else {}
    if subject.get("type") == "command":
        command = subject.get("command")
        return {}, ToolCallScope("execute", (), command[:SCOPE_KEPT] if isinstance(command, str) else "")
    tool_call = subject.get("toolCall") if subject.get("type") == "tool_call" else params.get("toolCall")
    return (tool_call if isinstance(tool_call, dict) else {}), None


def parse_permission_request(params: object) -> PermissionRequest:
    """The parts of `session/request_permission` we show. Options without a string id are left out;
    the title is v2's `title`, else v1's `toolCall.title`, else the tool call's kind or "a tool call".
    v2's tool call (`subject.toolCall`) is read as v1's `toolCall`; its `description` is kept."""
    params = params if isinstance(params, dict) else {}
    session_id = params.get("sessionId")
    tool_call, command_scope = _subject(params)
    title = params.get("title")
    if not isinstance(title, str) or not title.strip():
        title = tool_call.get("title")
    if not isinstance(title, str) or not title.strip():
        kind = tool_call.get("kind")
        title = f"a tool call ({kind})" if isinstance(kind, str) and kind else "a tool call"
    options = []
    raw_options = params.get("options")
    for option in raw_options if isinstance(raw_options, list) else []:
        if not isinstance(option, dict) or not isinstance(option.get("optionId"), str):
            continue
        name = option.get("name")
        kind = option.get("kind")
        options.append(
            PermissionOption(
                option["optionId"],
                name if isinstance(name, str) and name else option["optionId"],
                kind if isinstance(kind, str) else "",
            )
        )
    title = title[:TITLE_KEPT] + "…" if len(title) > TITLE_KEPT else title  # shown bounded anyway
    description = params.get("description")
    return PermissionRequest(
        session_id if isinstance(session_id, str) else "",
        title,
        tuple(options[:OPTIONS_KEPT]),
        command_scope or tool_call_scope(tool_call),
        description[:TITLE_KEPT] if isinstance(description, str) else "",
    )


def selected(option_id: str) -> dict[str, Any]:
    return {"outcome": {"outcome": "selected", "optionId": option_id}}


def cancelled() -> dict[str, Any]:
    return {"outcome": {"outcome": "cancelled"}}


def first_of_kinds(options: tuple[PermissionOption, ...], kinds: tuple[str, ...]) -> PermissionOption | None:
    """The first option of the first kind in `kinds` the agent offers (never an unknown kind)."""
    for kind in kinds:
        for option in options:
            if option.kind == kind:
                return option
    return None


def elicitation_message(params: object) -> str:
    message = params.get("message") if isinstance(params, dict) else None
    return message if isinstance(message, str) and message.strip() else "(no message)"


def elicitation_session(params: object) -> str:
    session_id = params.get("sessionId") if isinstance(params, dict) else None
    return session_id if isinstance(session_id, str) else ""


def _block_text(block: object) -> str | None:
    if isinstance(block, dict) and block.get("type") == "text" and isinstance(block.get("text"), str):
        text: str = block["text"]
        return text
    return None


def message_text(update: dict[str, Any]) -> str | None:
    """The text of an `agent_message_chunk` update (None for other content)."""
    return _block_text(update.get("content"))


def whole_message_text(update: dict[str, Any]) -> str | None:
    """v2 `agent_message`: the text of its complete replacement `content` (an array of blocks),
    or None when it carries none (omitted: unchanged; null or non-text: nothing to show)."""
    content = update.get("content")
    if not isinstance(content, list):
        return None
    texts = [t for t in (_block_text(block) for block in content) if t is not None]
    return "".join(texts) if texts else None


def message_id(update: dict[str, Any]) -> str | None:
    value = update.get("messageId")
    return value if isinstance(value, str) else None


def close_session_params(session_id: str) -> dict[str, Any]:
    return {"sessionId": session_id}


@dataclass(frozen=True)
class StateChange:
    """A v2 `state_update`: `running`, `requires_action`, `idle` (with its stop reason), or newer.
    An idle ending in an error carries its JSON-RPC error object's parts (`error` in words)."""

    state: str
    stop_reason: str | None = None
    error: str | None = None
    error_code: object = None
    error_message: object = None
    error_data: object = None

    @property
    def needs_sign_in(self) -> bool:
        """The work stopped because the agent wants a sign-in (its error's code or data say so)."""
        return self.stop_reason == "error" and means_auth_required(self.error_code, self.error_data)


def state_change(update: dict[str, Any]) -> StateChange | None:
    """The state of a v2 `state_update` (None when it has no string `state`)."""
    state = update.get("state")
    if not isinstance(state, str):
        return None
    stop = update.get("stopReason")
    error = update.get("error")
    if not isinstance(error, dict):
        return StateChange(state, stop if isinstance(stop, str) else None)
    code, message, data = error.get("code"), error.get("message"), error.get("data")
    return StateChange(
        state, stop if isinstance(stop, str) else None, error_words(code, message, data), code, message, data
    )
