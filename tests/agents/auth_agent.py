"""An ACP agent that needs a sign-in, standard library only (JSON-RPC over stdio by hand): a real
subprocess for the sign-in tests.

Signed in = the token file exists (AUTH_AGENT_TOKEN). Until then it answers -32000 "Authentication
required" where AUTH_AGENT_AT says: `new` (session/new), `load` (session/load; v2: session/resume)
or `prompt` (session/prompt). Methods it offers:
  token       (no `type`: an agent method)  `authenticate` / `auth/login` writes the token
  refuse      (agent)                        `authenticate` fails with -32603
  tui         (terminal, args --login, env AUTH_AGENT_MODE=ok)   the same program run with them
              writes the token and exits 0
  broken-tui  (terminal, args --login-fail)  exits 3 without writing it
  key         (env_var, vars AUTH_AGENT_KEY) `authenticate` signs in when AUTH_AGENT_KEY is set
  sso         (_acme.sso: a kind acp-tray does not know) must never be sent to `authenticate`
Terminal methods are offered only to a client that advertised `auth.terminal` (the spec's MUST).
`logout` / `auth/logout` removes the token. A prompt "env VAR" answers VAR's value (or "unset");
anything else is echoed. AUTH_AGENT_PROTOCOL=2 makes it a v2 agent; AUTH_AGENT_LOG=PATH appends
every message it receives as a JSON line.

For the hostile-text tests: AUTH_AGENT_OFFER=token,key,... offers only those methods;
AUTH_AGENT_ID_SUFFIX is appended to every method id (and given to the terminal methods as one more
argument); AUTH_AGENT_TUI_PATH is a PATH the `tui` method's env sets.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

PROTOCOL = int(os.environ.get("AUTH_AGENT_PROTOCOL", "1"))
AT = os.environ.get("AUTH_AGENT_AT", "new")
TOKEN = Path(os.environ.get("AUTH_AGENT_TOKEN", "auth-agent.token"))
LOG = os.environ.get("AUTH_AGENT_LOG")
OFFER = os.environ.get("AUTH_AGENT_OFFER")
SUFFIX = os.environ.get("AUTH_AGENT_ID_SUFFIX", "")
TUI_PATH = os.environ.get("AUTH_AGENT_TUI_PATH")


class RefusedError(Exception):
    def __init__(self, code: int, message: str) -> None:
        super().__init__(message)
        self.code = code


def send(message: dict[str, Any]) -> None:
    sys.stdout.write(json.dumps({"jsonrpc": "2.0", **message}) + "\n")
    sys.stdout.flush()


def signed_in() -> bool:
    return TOKEN.exists()


def methods(terminal: bool) -> list[dict[str, Any]]:
    key = "methodId" if PROTOCOL == 2 else "id"
    token: dict[str, Any] = {key: "token", "name": "Use a token", "description": "writes a token file"}
    refuse: dict[str, Any] = {key: "refuse", "name": "Always refused"}
    if PROTOCOL == 2:
        token["type"] = refuse["type"] = "agent"
    tui_env = {"AUTH_AGENT_MODE": "ok", **({"PATH": TUI_PATH} if TUI_PATH else {})}
    env: Any = [{"name": k, "value": v} for k, v in tui_env.items()] if PROTOCOL == 2 else tui_env
    extra = [SUFFIX] if SUFFIX else []
    offered = [token, refuse]
    if terminal:
        offered += [
            {key: "tui", "name": "Sign in in a terminal", "type": "terminal", "args": ["--login", *extra], "env": env},
            {
                key: "broken-tui",
                "name": "Broken terminal sign-in",
                "type": "terminal",
                "args": ["--login-fail", *extra],
            },
        ]
    offered.append(
        {key: "key", "name": "API key", "type": "env_var", "description": "set AUTH_AGENT_KEY",
         "vars": [{"name": "AUTH_AGENT_KEY"}]}
    )  # fmt: skip
    offered.append({key: "sso", "name": "Company SSO", "type": "_acme.sso", "description": "ask IT"})
    if OFFER is not None:
        offered = [m for m in offered if m[key] in OFFER.split(",")]
    for m in offered:
        m[key] += SUFFIX
    return offered


def require(where: str) -> None:
    if where == AT and not signed_in():
        raise RefusedError(-32000, "Authentication required")


def session_update(session_id: str, update: dict[str, Any]) -> None:
    send({"method": "session/update", "params": {"sessionId": session_id, "update": update}})


def say(session_id: str, text: str) -> None:
    chunk: dict[str, Any] = {"sessionUpdate": "agent_message_chunk", "content": {"type": "text", "text": text}}
    if PROTOCOL == 2:
        chunk["messageId"] = "reply"
    session_update(session_id, chunk)


def prompt(params: dict[str, Any]) -> dict[str, Any]:
    require("prompt")
    session_id = params["sessionId"]
    text = params["prompt"][0]["text"]
    verb, _, rest = text.partition(" ")
    reply = os.environ.get(rest, "unset") if verb == "env" else text
    if PROTOCOL == 2:
        session_update(session_id, {"sessionUpdate": "state_update", "state": "running"})
        say(session_id, reply)
        session_update(session_id, {"sessionUpdate": "state_update", "state": "idle", "stopReason": "end_turn"})
        return {"messageId": "m1"}
    say(session_id, reply)
    return {"stopReason": "end_turn"}


def initialize(params: dict[str, Any]) -> dict[str, Any]:
    caps = params.get("capabilities" if PROTOCOL == 2 else "clientCapabilities") or {}
    auth = caps.get("auth") or {}
    terminal = auth.get("terminal") not in (None, False)
    if PROTOCOL == 2:
        return {"protocolVersion": 2, "info": {"name": "auth-agent", "version": "1"}, "authMethods": methods(terminal)}
    agent_caps = {"loadSession": True, "auth": {"logout": {}}}
    return {"protocolVersion": 1, "agentCapabilities": agent_caps, "authMethods": methods(terminal)}


def authenticate(params: dict[str, Any]) -> dict[str, Any]:
    method_id = params.get("methodId")
    if SUFFIX and isinstance(method_id, str) and method_id.endswith(SUFFIX):
        method_id = method_id[: -len(SUFFIX)]
    if method_id == "token":
        TOKEN.write_text("signed in\n", encoding="utf-8")
        return {}
    if method_id == "key" and os.environ.get("AUTH_AGENT_KEY"):
        TOKEN.write_text("signed in with a key\n", encoding="utf-8")
        return {}
    if method_id == "refuse":
        raise RefusedError(-32603, "the token service said no")
    raise RefusedError(-32602, f"not a method to authenticate with: {method_id!r}")


def logout(params: dict[str, Any]) -> dict[str, Any]:
    TOKEN.unlink(missing_ok=True)
    return {}


def load_session(params: dict[str, Any]) -> dict[str, Any]:
    require("load")
    return {}


class Agent:
    def __init__(self) -> None:
        self.sessions = 0

    def handle(self, method: str, params: dict[str, Any]) -> Any:
        handlers: dict[str, Callable[[dict[str, Any]], Any]] = {
            "initialize": initialize,
            "authenticate": authenticate,
            "auth/login": authenticate,
            "logout": logout,
            "auth/logout": logout,
            "session/new": self.new_session,
            "session/load": load_session,
            "session/resume": load_session,
            "session/close": lambda params: {},
            "session/prompt": prompt,
        }
        if method not in handlers:
            raise RefusedError(-32601, f"method not found: {method}")
        return handlers[method](params)

    def new_session(self, params: dict[str, Any]) -> dict[str, Any]:
        require("new")
        self.sessions += 1
        return {"sessionId": f"auth-{self.sessions}-{os.getpid()}"}

    def serve(self) -> None:
        for line in sys.stdin:
            if not line.strip():
                continue
            message = json.loads(line)
            if LOG:
                with open(LOG, "a", encoding="utf-8") as handle:
                    handle.write(json.dumps(message) + "\n")
            if "method" not in message or "id" not in message:
                continue  # notifications (session/cancel) and answers: nothing to do
            try:
                result = self.handle(message["method"], message.get("params") or {})
            except RefusedError as exc:
                send({"id": message["id"], "error": {"code": exc.code, "message": str(exc)}})
            else:
                send({"id": message["id"], "result": result})


def terminal_login(succeed: bool) -> int:
    print("auth-agent: signing in (terminal method)")
    if not succeed or os.environ.get("AUTH_AGENT_MODE") != "ok":
        print("auth-agent: sign-in failed")
        return 3
    TOKEN.write_text("signed in from a terminal\n", encoding="utf-8")
    print("auth-agent: signed in")
    return 0


if __name__ == "__main__":
    if "--login" in sys.argv[1:]:
        raise SystemExit(terminal_login(True))
    if "--login-fail" in sys.argv[1:]:
        raise SystemExit(terminal_login(False))
    Agent().serve()
