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
argument); AUTH_AGENT_TUI_PATH is a PATH the `tui` method's env sets; AUTH_AGENT_TUI_JSON (a JSON object) replaces
fields of the `tui` method as declared (e.g. {"args": ["--login", "\u0000"]}: what no program can be given).

The sign-in conventions of agents in the wild, offered with AUTH_AGENT_EXTRA=oauth,legacy-tui,...
(whatever the client advertised):
  oauth       (agent) an OAuth-style flow: `authenticate` listens on AUTH_AGENT_OAUTH_PORT (its
              callback server) and answers only once something connects there (signed in) or the
              request is cancelled (`$/cancel_request`: the port is freed, -32800). A second one
              while the port is held fails with "Port N is already in use". AUTH_AGENT_STUCK=1: it
              ignores the cancellation and keeps the port (an agent stuck in its sign-in).
  legacy-tui  no `type`: Zed's older `_meta["terminal-auth"]` (command, args, env, label), the
              `--login` of this program run by the interpreter
  meta-tui    the `terminal` type given only in `_meta` (with its args and env), as qwen does
  hollow      (agent) `authenticate` answers {} but signs nothing in: the agent still refuses
  url-code    (agent) gemini's user-code login: on stdout, not as JSON-RPC, "Please visit the
              following URL…", the address and "Enter the authorization code: " (no line end); on
              stderr an address for this machine, one that must not become a link (plain http
              elsewhere) and a `javascript:` one. It reads the next line on stdin that is not
              JSON-RPC as the code, echoes it as readline does, and signs in when it is URL_CODE
              (else -32000 "Failed to authenticate with user code.", after a stderr line naming
              the token endpoint that failed); its answer comes after `ESC[?1049l` on one line.
AUTH_AGENT_REFUSAL sets the "authentication required" message, AUTH_AGENT_REFUSAL_DATA (JSON) its
`data`; AUTH_AGENT_OFFER= (empty) offers no method at all.
"""

from __future__ import annotations

import contextlib
import json
import os
import socket
import sys
import threading
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
TUI_JSON: dict[str, Any] = json.loads(os.environ.get("AUTH_AGENT_TUI_JSON", "{}"))
EXTRA = [m for m in os.environ.get("AUTH_AGENT_EXTRA", "").split(",") if m]
OAUTH_PORT = int(os.environ.get("AUTH_AGENT_OAUTH_PORT", "0"))
STUCK = os.environ.get("AUTH_AGENT_STUCK") == "1"
REFUSAL = os.environ.get("AUTH_AGENT_REFUSAL", "Authentication required")
REFUSAL_DATA = os.environ.get("AUTH_AGENT_REFUSAL_DATA")
SENDING = threading.Lock()  # the OAuth callback answers from its own thread
URL_CODE = "4/0AVMBsJh-good-code"
SIGN_IN_PAGE = "https://accounts.example.com/o/oauth2/v2/auth?redirect_uri=urn%3Aietf&state=8f3a&scope=openid"


class RefusedError(Exception):
    def __init__(self, code: int, message: str, data: Any = None) -> None:
        super().__init__(message)
        self.code = code
        self.data = data


class PendingError(Exception):
    """The request is answered later (an OAuth flow waiting for its callback)."""


class CodeAskedError(Exception):
    """The request is answered once the person's code comes on stdin (gemini's user-code login)."""


def send(message: dict[str, Any]) -> None:
    with SENDING:
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
            {
                key: "tui",
                "name": "Sign in in a terminal",
                "type": "terminal",
                "args": ["--login", *extra],
                "env": env,
                **TUI_JSON,
            },
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
    offered += [wild_method(key, name) for name in EXTRA]
    if OFFER is not None:
        offered = [m for m in offered if m[key] in OFFER.split(",")]
    for m in offered:
        m[key] += SUFFIX
    return offered


def wild_method(key: str, name: str) -> dict[str, Any]:
    """The methods of AUTH_AGENT_EXTRA, as agents in the wild declare them."""
    login = [os.path.abspath(__file__), "--login"]
    if name == "oauth":
        return {key: "oauth", "name": "Sign in with a browser", "description": "opens your browser"}
    if name == "legacy-tui":
        meta = {"command": sys.executable, "args": login, "env": {"AUTH_AGENT_MODE": "ok"}, "label": "Log in"}
        return {key: "legacy-tui", "name": "Log in from a terminal", "_meta": {"terminal-auth": meta}}
    if name == "meta-tui":
        meta = {"type": "terminal", "args": ["--login"], "env": {"AUTH_AGENT_MODE": "ok"}}
        return {key: "meta-tui", "name": "Terminal login (typed in _meta)", "_meta": meta}
    return {key: name, "name": f"Method {name}"}


def require(where: str) -> None:
    if where == AT and not signed_in():
        data = json.loads(REFUSAL_DATA) if REFUSAL_DATA else None
        raise RefusedError(-32000, REFUSAL, data)


class OAuth:
    """The `oauth` method's callback server: one flow at a time, as the real ones (its port)."""

    def __init__(self) -> None:
        self.request_id: Any = None
        self.server: socket.socket | None = None

    def start(self, request_id: Any) -> None:
        server = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        try:
            server.bind(("127.0.0.1", OAUTH_PORT))
        except OSError:
            server.close()
            raise RefusedError(-32603, f"Port {OAUTH_PORT} is already in use") from None
        server.listen(1)
        self.request_id, self.server = request_id, server
        threading.Thread(target=self._callback, args=(server, request_id), daemon=True).start()

    def _callback(self, server: socket.socket, request_id: Any) -> None:
        try:
            conn, _ = server.accept()
        except OSError:
            return  # closed: the flow was cancelled
        conn.close()
        TOKEN.write_text("signed in with a browser\n", encoding="utf-8")
        self.finish(request_id, {"id": request_id, "result": {}})

    def cancel(self, request_id: Any) -> None:
        if request_id == self.request_id and self.server is not None and not STUCK:
            self.finish(request_id, {"id": request_id, "error": {"code": -32800, "message": "Request cancelled"}})

    def finish(self, request_id: Any, answer: dict[str, Any]) -> None:
        if self.request_id != request_id or self.server is None:
            return
        server, self.server, self.request_id = self.server, None, None
        with contextlib.suppress(OSError):
            server.shutdown(socket.SHUT_RDWR)  # wakes the callback thread's accept(), which holds the port
        server.close()
        send(answer)


OAUTH = OAuth()


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
    if method_id == "oauth" and "oauth" in EXTRA:
        raise PendingError
    if method_id == "hollow" and "hollow" in EXTRA:
        return {}
    if method_id == "url-code" and "url-code" in EXTRA:
        sys.stderr.write("auth-agent: on this machine: http://127.0.0.1:8085/oauth2callback?ready=1\n")
        sys.stderr.write("auth-agent: not a link: http://evil.example.com/phish and javascript:alert(1)\n")
        sys.stderr.flush()
        with SENDING:  # as gemini: its terminal's words on stdout, between the JSON-RPC lines
            sys.stdout.write("\x1b[?1049h\x1b[2J\x1b[HPlease visit the following URL to authorize the application:\n\n")
            sys.stdout.write(SIGN_IN_PAGE + "\n\nEnter the authorization code: ")
            sys.stdout.flush()
        raise CodeAskedError
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
        self.code_for: Any = None  # the `authenticate` waiting for a code on stdin

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
            if self.code_for is not None and not line.startswith("{"):
                self.code(line.strip())
                continue
            self.receive(json.loads(line))

    def receive(self, message: dict[str, Any]) -> None:
        """One JSON-RPC message from the client: logged, then answered (or kept for later)."""
        if LOG:
            with open(LOG, "a", encoding="utf-8") as handle:
                handle.write(json.dumps(message) + "\n")
        if message.get("method") == "$/cancel_request":
            OAUTH.cancel((message.get("params") or {}).get("requestId"))
        if "method" not in message or "id" not in message:
            return  # notifications (session/cancel) and answers: nothing to do
        try:
            result = self.handle(message["method"], message.get("params") or {})
        except CodeAskedError:
            self.code_for = message["id"]
        except PendingError:
            try:
                OAUTH.start(message["id"])
            except RefusedError as exc:
                send({"id": message["id"], "error": {"code": exc.code, "message": str(exc)}})
        except RefusedError as exc:
            error: dict[str, Any] = {"code": exc.code, "message": str(exc)}
            send({"id": message["id"], "error": error if exc.data is None else {**error, "data": exc.data}})
        else:
            send({"id": message["id"], "result": result})

    def code(self, code: str) -> None:
        """The person's code, read as a terminal program reads it (and echoed, as readline does)."""
        request_id, self.code_for = self.code_for, None
        with SENDING:  # and, as gemini, it leaves its alternate screen on the line of its answer
            sys.stdout.write(code + "\r\n\x1b[?1049l")
        if code != URL_CODE:
            sys.stderr.write(
                "Failed to authenticate with authorization code:request to https://oauth2.example.com/token failed\n"
            )
            sys.stderr.flush()
            send({"id": request_id, "error": {"code": -32000, "message": "Failed to authenticate with user code."}})
            return
        TOKEN.write_text("signed in with a code\n", encoding="utf-8")
        send({"id": request_id, "result": {}})


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
