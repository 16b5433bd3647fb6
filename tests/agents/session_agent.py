"""A well-behaved ACP v1 agent for session tests, on the SDK's `Connection`: a real subprocess.

Many sessions; a prompt's text says what the turn does (words are separated by spaces):
  say TEXT...        stream TEXT back in a few chunks, then end_turn
  slow SECONDS       stream "tick " every 0.1 s for SECONDS (cancellable: answers "cancelled")
  flood MEGABYTES    stream that many MB of "x" in 64 KiB chunks as fast as it can, then end_turn
  ask                request permission (allow_once "allow", reject_once "reject", "_odd" of an
                     unknown kind), say which option came back, then end_turn
  stop REASON        end the turn with that stop reason
  fail               answer the prompt with a JSON-RPC error
  crash              exit at once with code 3
  elicit             ask a form question (a required string "branch") and say the answer's action
                     and content ("elicitation=accept {"branch": "main"}")
  elicit-odd         ask in a mode acp-tray does not know ("_acme.wizard") and say the answer's action
  notice TITLE...    send a warning notice, then end_turn
  withdraw PATH      request permission, then withdraw it with `$/cancel_request` once the file PATH
                     exists (looking every 0.1 s, for at most 60 s)
  hang               never end the turn, and ignore session/cancel
  hold PATH          end the turn (end_turn) once the file PATH exists (the same way)
Anything else is echoed. Environment:
  SESSION_AGENT_LOAD=1     advertise loadSession; session/load replays a notice and a chunk
  SESSION_AGENT_RESUME=1   advertise sessionCapabilities.resume
  SESSION_AGENT_EXIT_AT_START=CODE  exit with CODE right after starting (a crash loop)
  SESSION_AGENT_LOG=PATH   append every received method (and its params), and the answers to
                           its own requests, as JSON lines
  SESSION_AGENT_PROTOCOL=N answer protocolVersion N (default 1). With 2 it is a v2 agent: offered
                           less, it refuses with -32022; prompts are acknowledged with a messageId
                           and the turn is reported by state_update (running ... idle + stopReason)
  SESSION_AGENT_AUTH=1     advertise a sign-in method and refuse session/new with -32000
  SESSION_AGENT_REFUSE=TEXT  answer session/new with -32603 and TEXT (alive, but refusing), and
                           write "why it refused" lines to stderr before that
Extra verb for v2: `oddities` sends unknown update variants, a `_`-severity notice and a malformed
known variant (agent_message_chunk without its messageId), then a valid chunk.
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
from collections.abc import Awaitable, Callable
from typing import Any

from acp import RequestError
from acp.connection import Connection
from acp.stdio import stdio_streams

LOG = os.environ.get("SESSION_AGENT_LOG")


def log(entry: dict[str, Any]) -> None:
    if LOG:
        with open(LOG, "a", encoding="utf-8") as handle:
            handle.write(json.dumps(entry) + "\n")


PROTOCOL = int(os.environ.get("SESSION_AGENT_PROTOCOL", "1"))


async def released(path: str) -> None:
    """Until the file `path` exists (at most 60 s): the test says when, not the machine's speed."""
    for _ in range(600):
        if await asyncio.to_thread(os.path.exists, path):
            return
        await asyncio.sleep(0.1)


class SessionAgent:
    def __init__(self) -> None:
        self.connection: Connection | None = None
        self.count = 0
        self.cancelled: set[str] = set()
        self.messages = 0
        self.tasks: set[asyncio.Task[None]] = set()

    def message_id(self) -> str:
        self.messages += 1
        return f"m{self.messages}"

    async def request(self, method: str, params: dict[str, Any]) -> Any:
        assert self.connection is not None
        answer = await self.connection.send_request(method, params)
        log({"answer_to": method, "result": answer})
        return answer

    async def update(self, session_id: str, update: dict[str, Any]) -> None:
        assert self.connection is not None
        await self.connection.send_notification("session/update", {"sessionId": session_id, "update": update})

    async def say(self, session_id: str, text: str) -> None:
        chunk: dict[str, Any] = {"sessionUpdate": "agent_message_chunk", "content": {"type": "text", "text": text}}
        if PROTOCOL == 2:
            chunk["messageId"] = "reply"
        await self.update(session_id, chunk)

    async def state(self, session_id: str, state: str, stop: str | None = None) -> None:
        update: dict[str, Any] = {"sessionUpdate": "state_update", "state": state}
        if stop is not None:
            update["stopReason"] = stop
        await self.update(session_id, update)

    async def turn_v2(self, session_id: str, text: str) -> None:
        await self.state(session_id, "running")
        try:
            result = await self.prompt(session_id, text)
        except RequestError as exc:
            await self.update(
                session_id,
                {
                    "sessionUpdate": "state_update",
                    "state": "idle",
                    "stopReason": "error",
                    "error": {"code": exc.code, "message": str(exc), "data": exc.data},
                },
            )
            return
        await self.state(session_id, "idle", result["stopReason"])

    async def __call__(self, method: str, params: Any, is_notification: bool) -> Any:
        log({"method": method, "params": params})
        handlers: dict[str, Callable[[Any], Awaitable[Any]]] = {
            "initialize": self.initialize,
            "session/new": self.new_session,
            "session/close": self.nothing,
            "session/load": self.load_session,
            "session/resume": self.nothing,
            "session/cancel": self.cancel,
            "session/prompt": self.start_prompt,
        }
        if method in handlers:
            return await handlers[method](params)
        if is_notification:
            return None
        raise RequestError.method_not_found(method)

    async def initialize(self, params: Any) -> dict[str, Any]:
        auth = [{"methodId": "login", "name": "Log in with a browser", "description": "run `sa login` once"}]
        auth = auth if os.environ.get("SESSION_AGENT_AUTH") == "1" else []
        if PROTOCOL == 2:
            if params.get("protocolVersion", 1) < 2:
                raise RequestError(-32022, "Unsupported protocol version", {"supported": [2]})
            for method_ in auth:
                method_["type"] = "agent"
            return {"protocolVersion": 2, "info": {"name": "session-agent", "version": "1"}, "authMethods": auth}
        capabilities: dict[str, Any] = {"loadSession": os.environ.get("SESSION_AGENT_LOAD") == "1"}
        if os.environ.get("SESSION_AGENT_RESUME") == "1":
            capabilities["sessionCapabilities"] = {"resume": {}}
        return {"protocolVersion": PROTOCOL, "agentCapabilities": capabilities, "authMethods": auth}

    async def new_session(self, params: Any) -> dict[str, Any]:
        if os.environ.get("SESSION_AGENT_AUTH") == "1":
            raise RequestError(-32000, "Authentication required")
        refusal = os.environ.get("SESSION_AGENT_REFUSE")
        if refusal:
            sys.stderr.write('\x1b[2mrefusing: setting up the model failed\x1b[0m\n{\n  "code": 1\n}\n')
            sys.stderr.flush()
            raise RequestError(-32603, refusal)
        self.count += 1
        return {"sessionId": f"s{self.count}-{os.getpid()}"}

    async def nothing(self, params: Any) -> dict[str, Any]:
        return {}

    async def load_session(self, params: Any) -> dict[str, Any]:
        session_id = params["sessionId"]
        await self.update(session_id, {"sessionUpdate": "notice", "severity": "info", "title": "Replayed notice"})
        await self.say(session_id, "replayed text")
        return {}

    async def cancel(self, params: Any) -> None:
        self.cancelled.add(params["sessionId"])

    async def start_prompt(self, params: Any) -> dict[str, Any]:
        if PROTOCOL == 2:  # acknowledge; the turn runs on and ends with an idle state
            task = asyncio.create_task(self.turn_v2(params["sessionId"], params["prompt"][0]["text"]))
            self.tasks.add(task)
            task.add_done_callback(self.tasks.discard)
            return {"messageId": self.message_id()}
        return await self.prompt(params["sessionId"], params["prompt"][0]["text"])

    async def prompt(self, session_id: str, text: str) -> dict[str, Any]:
        """One turn: the prompt's first word says what it does (the module's docstring); its end."""
        self.cancelled.discard(session_id)
        verb, _, rest = text.partition(" ")
        verbs: dict[str, Callable[[str, str], Awaitable[dict[str, Any] | None]]] = {
            "say": self.say_words,
            "flood": self.flood,
            "slow": self.slow,
            "hold": self.hold,
            "ask": self.ask,
            "stop": self.stop,
            "hang": self.hang,
            "fail": self.fail,
            "crash": self.crash,
            "elicit": self.elicit,
            "elicit-odd": self.elicit_odd,
            "withdraw": self.withdraw,
            "oddities": self.oddities,
            "notice": self.notice,
        }
        if verb not in verbs:
            await self.say(session_id, text)
            return {"stopReason": "end_turn"}
        return await verbs[verb](session_id, rest) or {"stopReason": "end_turn"}

    async def say_words(self, session_id: str, rest: str) -> None:
        for word in rest.split(" "):
            await self.say(session_id, word + " ")

    async def flood(self, session_id: str, rest: str) -> None:
        for _ in range(int(float(rest) * 16)):
            await self.say(session_id, "x" * 65536)

    async def slow(self, session_id: str, rest: str) -> dict[str, Any] | None:
        for _ in range(int(float(rest) * 10)):
            if session_id in self.cancelled:
                return {"stopReason": "cancelled"}
            await self.say(session_id, "tick ")
            await asyncio.sleep(0.1)
        return None

    async def hold(self, session_id: str, rest: str) -> None:
        await released(rest)

    async def ask(self, session_id: str, rest: str) -> dict[str, Any] | None:
        options = [
            {"optionId": "allow", "name": "Allow once", "kind": "allow_once"},
            {"optionId": "reject", "name": "Reject", "kind": "reject_once"},
            {"optionId": "_odd", "name": "Something new", "kind": "_odd_kind"},
        ]
        if PROTOCOL == 2:
            permission: dict[str, Any] = {"sessionId": session_id, "title": "Delete build/", "options": options}
            await self.state(session_id, "requires_action")
        else:
            tool_call = {"toolCallId": "t1", "title": "Delete build/", "kind": "delete"}
            permission = {"sessionId": session_id, "toolCall": tool_call, "options": options}
        answer = await self.request("session/request_permission", permission)
        if PROTOCOL == 2:
            await self.state(session_id, "running")
        outcome = answer["outcome"]
        await self.say(session_id, f"outcome={outcome.get('optionId', outcome['outcome'])}")
        return {"stopReason": "cancelled"} if session_id in self.cancelled else None

    async def stop(self, session_id: str, rest: str) -> dict[str, Any]:
        return {"stopReason": rest}

    async def hang(self, session_id: str, rest: str) -> None:
        await asyncio.Event().wait()

    async def fail(self, session_id: str, rest: str) -> None:
        raise RequestError.internal_error({"details": "the model is unavailable"})

    async def crash(self, session_id: str, rest: str) -> None:
        sys.stderr.write("fatal: crashing on request\n")
        sys.stderr.flush()
        os._exit(3)

    async def elicit(self, session_id: str, rest: str) -> None:
        schema = {"type": "object", "properties": {"branch": {"type": "string"}}, "required": ["branch"]}
        answer = await self.request(
            "elicitation/create",
            {"sessionId": session_id, "message": "Which branch?", "mode": "form", "requestedSchema": schema},
        )
        content = f" {json.dumps(answer['content'])}" if answer.get("content") is not None else ""
        await self.say(session_id, f"elicitation={answer.get('action')}{content}")

    async def elicit_odd(self, session_id: str, rest: str) -> None:
        answer = await self.request(
            "elicitation/create", {"sessionId": session_id, "message": "Which branch?", "mode": "_acme.wizard"}
        )
        await self.say(session_id, f"elicitation={answer.get('action')}")

    async def withdraw(self, session_id: str, rest: str) -> None:
        """Ask, then take the request back with $/cancel_request."""
        assert self.connection is not None
        request_id = self.connection._next_request_id  # the id the SDK gives the next request
        options = [{"optionId": "allow", "name": "Allow once", "kind": "allow_once"}]
        permission: dict[str, Any] = {"sessionId": session_id, "title": "Withdrawn", "options": options}
        if PROTOCOL != 2:
            permission = {"sessionId": session_id, "toolCall": {"toolCallId": "t2"}, "options": options}
        asking = asyncio.create_task(self.request("session/request_permission", permission))
        await released(rest)
        await self.connection.send_notification("$/cancel_request", {"requestId": request_id})
        answer = await asking
        await self.say(session_id, f"outcome={answer['outcome']['outcome']}")

    async def oddities(self, session_id: str, rest: str) -> None:
        await self.update(session_id, {"sessionUpdate": "_acme.progress", "percent": 40, "deep": {"x": [1]}})
        await self.update(session_id, {"sessionUpdate": "future_thing", "whatever": True})
        await self.update(session_id, {"sessionUpdate": "notice", "severity": "_acme.alert", "title": "Custom"})
        await self.update(
            session_id, {"sessionUpdate": "agent_message_chunk", "content": {"type": "text", "text": "x"}}
        )
        await self.say(session_id, "after the oddities")

    async def notice(self, session_id: str, rest: str) -> None:
        await self.update(session_id, {"sessionUpdate": "notice", "severity": "warning", "title": rest})


async def serve() -> None:
    reader, writer = await stdio_streams()
    agent = SessionAgent()
    agent.connection = Connection(agent, writer, reader, listening=False)
    await agent.connection.main_loop()


if __name__ == "__main__":
    code = os.environ.get("SESSION_AGENT_EXIT_AT_START")
    if code is not None:
        sys.stderr.write(f"session agent: exiting at start with {code}\n")
        raise SystemExit(int(code))
    asyncio.run(serve())
