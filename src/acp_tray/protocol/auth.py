"""ACP sign-in on the wire (v1 and v2): the agent's `authMethods`, what acp-tray says it can do
(`auth.terminal`), and the login/logout requests it sends. Pure: no I/O; tolerant of agent input.

v1: methods carry `id`, `type` is optional (absent: `agent`), a terminal method's `env` is an
object; login is `authenticate`, logout is `logout` (only when `agentCapabilities.auth.logout`).
v2: methods carry `methodId` and a `type`; a terminal method's `env` is a list of `{name, value}`;
login is `auth/login`, logout `auth/logout` (both baseline when `authMethods` is not empty).
Older terminal methods (before the `terminal` type): Zed's `_meta["terminal-auth"]` (a whole command:
`command`, `args`, `env`, `label`), or the type given only in `_meta` (`_meta.type`). A terminal
method whose command or variables are not text (a NUL, a control character, a lone surrogate) is
kept, marked `unusable` with the reason: no program could be given it as it is declared.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from acp_tray.protocol.text_rules import not_text
from acp_tray.protocol.version import ProtocolVersion

AUTH_REQUIRED = -32000  # the JSON-RPC error code of "authentication required"
AGENT = "agent"
TERMINAL = "terminal"
ENV_VAR = "env_var"  # not in the schemas yet; agents (codex-acp) send it with `vars: [{name}]`
METHODS_KEPT = 20
TEXT_KEPT = 500


@dataclass(frozen=True)
class AuthMethod:
    method_id: str
    name: str
    kind: str  # "agent" (also when the agent gave no type), "terminal", or another (env_var, newer)
    description: str | None = None
    args: tuple[str, ...] = ()  # terminal: given to the agent's own program (agents/invocation.py)
    env: tuple[tuple[str, str], ...] = field(default=())  # terminal: laid over the agent's environment
    vars: tuple[str, ...] = ()  # env_var: the variables the agent reads (then `authenticate` with the id)
    command: tuple[str, ...] = ()  # terminal, `_meta["terminal-auth"]`: the whole command (not the agent's)
    unusable: str | None = None  # why it cannot be run as declared (a terminal method's command or env)
    replaces: bool = False  # terminal typed in `_meta`: its args replace the agent's default args (the registry's way)

    @property
    def runs_in_terminal(self) -> bool:
        return self.kind == TERMINAL

    @property
    def through_agent(self) -> bool:
        return self.kind == AGENT

    @property
    def from_environment(self) -> bool:
        """An env_var method: the agent signs in with variables of its environment, once asked to."""
        return self.kind == ENV_VAR and bool(self.vars)

    def describe(self) -> str:
        """One line: 'NAME (id, kind): description'."""
        text = f"{self.name} ({self.method_id}, {self.kind})"
        return text + (f": {self.description}" if self.description else "")


def _text(value: object) -> str | None:
    return value[:TEXT_KEPT] if isinstance(value, str) else None


def _env(raw: object) -> tuple[tuple[str, str], ...]:
    """v1: {"NAME": "value"}; v2: [{"name": "NAME", "value": "value"}]. Anything else is left out."""
    if isinstance(raw, dict):
        pairs = list(raw.items())
    elif isinstance(raw, list):
        pairs = [(item.get("name"), item.get("value")) for item in raw if isinstance(item, dict)]
    else:
        return ()
    return tuple((k, v) for k, v in pairs if isinstance(k, str) and k and "=" not in k and isinstance(v, str))


def _vars(raw: object) -> tuple[str, ...]:
    items = raw if isinstance(raw, list) else []
    names = [item.get("name") if isinstance(item, dict) else item for item in items]
    return tuple(n for n in names if isinstance(n, str) and n and "=" not in n)


def _meta_of(item: dict[str, Any]) -> dict[str, Any]:
    meta = item.get("_meta")
    return meta if isinstance(meta, dict) else {}


def _terminal_auth(item: dict[str, Any]) -> dict[str, Any] | None:
    """Zed's older convention: `_meta["terminal-auth"]` = {command, args, env, label}."""
    found = _meta_of(item).get("terminal-auth")
    command = found.get("command") if isinstance(found, dict) else None
    return found if isinstance(found, dict) and isinstance(command, str) and command else None


def _args(raw: object) -> tuple[str, ...]:
    return tuple(a for a in raw if isinstance(a, str)) if isinstance(raw, list) else ()


def _terminal_problem(command: tuple[str, ...], args: tuple[str, ...], env: tuple[tuple[str, str], ...]) -> str | None:
    """Why a terminal method's command (or args) and variables cannot be given to a program, or
    None (a variable's value is never quoted: it may be a secret)."""
    what = "word {} of its command" if command else "its argument {}"
    for number, word in enumerate(command or args, 1):
        problem = not_text(word)
        if problem is not None:
            return f"{what.format(number)} {problem}"
    for variable, value in env:
        problem = not_text(variable)
        if problem is not None:
            return f"the name of its variable {ascii(variable)[:60]} {problem}"
        problem = not_text(value)
        if problem is not None:
            return f"the value of its variable {variable} {problem}"
    return None


def _method(item: dict[str, Any], method_id: str, name: str) -> AuthMethod:
    """One method; its kind from `type`, else from `_meta` (older agents), else `agent`. A method
    typed `terminal` is run the standard way even when it also carries `_meta["terminal-auth"]`."""
    meta = _meta_of(item)
    legacy = _terminal_auth(item) if item.get("type") != TERMINAL else None
    kind = item.get("type") or meta.get("type")
    kind = TERMINAL if legacy is not None else kind if isinstance(kind, str) and kind else AGENT
    terminal = item if "args" in item or "env" in item or not meta.get("type") else meta
    command: tuple[str, ...]
    args: tuple[str, ...]
    if legacy is not None:
        label = legacy.get("label")
        name = label if not name and isinstance(label, str) else name
        command = (legacy["command"], *_args(legacy.get("args")))
        args, env = (), _env(legacy.get("env"))
    else:
        command, args, env = (), _args(terminal.get("args")), _env(terminal.get("env"))
    unusable = _terminal_problem(command, args, env) if kind == TERMINAL else None
    return AuthMethod(
        method_id,
        name[:TEXT_KEPT] or method_id,
        kind[:TEXT_KEPT],
        _text(item.get("description")),
        args if kind == TERMINAL else (),
        env if kind == TERMINAL else (),
        _vars(item.get("vars")) if kind == ENV_VAR else (),
        command,
        unusable,
        replaces=kind == TERMINAL and not item.get("type") and legacy is None,
    )


def parse_auth_methods(raw: object) -> tuple[AuthMethod, ...]:
    """The `authMethods` of an `initialize` answer (either version: `methodId` or `id`)."""
    methods: list[AuthMethod] = []
    for item in raw if isinstance(raw, list) else []:
        if not isinstance(item, dict):
            continue
        method_id = item.get("methodId", item.get("id"))
        name = item.get("name")
        if not isinstance(method_id, str) or not method_id or not isinstance(name, str):
            continue
        methods.append(_method(item, method_id, name))
    return tuple(methods[:METHODS_KEPT])


def can_log_out(initialize_result: object, version: ProtocolVersion) -> bool:
    """v1: `agentCapabilities.auth.logout` is an object; v2: the agent offered any method."""
    if not isinstance(initialize_result, dict):
        return False
    if version is ProtocolVersion.V2:
        methods = initialize_result.get("authMethods")
        return isinstance(methods, list) and bool(methods)
    caps = initialize_result.get("agentCapabilities")
    auth = caps.get("auth") if isinstance(caps, dict) else None
    return isinstance(auth, dict) and isinstance(auth.get("logout"), dict)


def client_auth_capabilities(version: ProtocolVersion, *, terminal: bool = True) -> dict[str, Any]:
    """Whether acp-tray can run the agent's own command in a terminal: v1 `terminal: true`, v2
    `terminal: {}`. Only for a local agent: the schema asks for it only where the client "can
    reproduce the configured agent invocation", and a remote agent's is not acp-tray's to run."""
    if version is ProtocolVersion.V2:
        return {"terminal": {}} if terminal else {}
    return {"terminal": terminal}


def client_meta(*, terminal: bool = True) -> dict[str, Any]:
    """The `_meta` of acp-tray's client capabilities: Zed's `"terminal-auth": true`, beside
    `auth.terminal`. Agents of the older convention offer their `_meta["terminal-auth"]` command
    only to a client that says this (opencode's `opencode auth login`); the ACP Registry's
    verifier sends both."""
    return {"_meta": {"terminal-auth": True}} if terminal else {}


def login_method(version: ProtocolVersion) -> str:
    return "auth/login" if version is ProtocolVersion.V2 else "authenticate"


def logout_method(version: ProtocolVersion) -> str:
    return "auth/logout" if version is ProtocolVersion.V2 else "logout"


def login_params(method_id: str) -> dict[str, Any]:
    return {"methodId": method_id}


def logout_params() -> dict[str, Any]:
    return {}
