"""A hostile ACP v1 agent for the hostile-text tests: a real subprocess, standard library only.

Reads its script from the JSON file named by `$HOSTILE_AGENT_SCRIPT` (JSON escapes such as
"\\ud800" arrive as lone surrogates, exactly as through the wire) and sends it back with
`json.dumps` (escapes again, so the daemon parses them the way it would from any agent):

  {"session_id": "...",          the sessionId it answers session/new with
   "updates": [update, ...],     session/update notifications sent after session/new
   "permissions": [params, ...], session/request_permission requests sent after them (never awaited)
   "reply": ["chunk", ...]}      agent_message_chunk texts for each session/prompt, then end_turn
"""

from __future__ import annotations

import json
import os
import sys
from typing import Any


def send(message: dict[str, Any]) -> None:
    sys.stdout.buffer.write(json.dumps({"jsonrpc": "2.0", **message}).encode("ascii") + b"\n")
    sys.stdout.buffer.flush()


def main() -> int:
    with open(os.environ["HOSTILE_AGENT_SCRIPT"], encoding="utf-8") as handle:
        script = json.load(handle)
    session_id = script.get("session_id", "hostile-1")
    next_id = 5000
    for line in sys.stdin.buffer:
        message = json.loads(line)
        method = message.get("method")
        if method == "initialize":
            send({"id": message["id"], "result": {"protocolVersion": 1, "agentCapabilities": {}}})
        elif method == "session/new":
            send({"id": message["id"], "result": {"sessionId": session_id}})
            for update in script.get("updates", []):
                send({"method": "session/update", "params": {"sessionId": session_id, "update": update}})
            for params in script.get("permissions", []):
                next_id += 1
                send(
                    {
                        "id": next_id,
                        "method": "session/request_permission",
                        "params": {"sessionId": session_id, **params},
                    }
                )
        elif method == "session/prompt":
            for text in script.get("reply", []):
                update = {"sessionUpdate": "agent_message_chunk", "content": {"type": "text", "text": text}}
                send({"method": "session/update", "params": {"sessionId": session_id, "update": update}})
            send({"id": message["id"], "result": {"stopReason": "end_turn"}})
        elif "id" in message and method is not None:
            send({"id": message["id"], "error": {"code": -32601, "message": "Method not found"}})
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
