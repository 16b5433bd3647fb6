"""A hostile-on-purpose ACP v1 agent for tests: a real subprocess that follows a script.

It answers `initialize` and `session/new` properly, then plays the steps given as JSON in
`$SCRIPTED_AGENT_STEPS` (or a file named by `$SCRIPTED_AGENT_STEPS_FILE`):

  {"raw": "text"}            write the text and a newline to stdout, as is (garbage welcome)
  {"raw_hex": "ff00"}        write these bytes and a newline
  {"update": {...}}          send a session/update notification with this update
  {"repeat": N, "update": {...}}  the same N times ({"n"} in a string becomes the index)
  {"request": M, "params": P}  send a request and wait for its response (logged)
  {"stderr": N}              write N bytes of chatter to stderr
  {"stderr_text": "text"}    write the text and a newline to stderr, as is
  {"env": "NAME"}            send an info notice titled with the value of $NAME
  {"sleep": S}               sleep S seconds
  {"wait_file": PATH}        wait until PATH exists (a test's go-ahead)
  {"exit": CODE}             exit immediately with CODE

Everything it receives is appended as JSON lines to `$SCRIPTED_AGENT_LOG` when set, and
every raw byte read from stdin is copied to `$SCRIPTED_AGENT_STDIN_COPY` when set.
"""

from __future__ import annotations

import json
import os
import sys
import time
from collections.abc import Callable
from typing import Any

LOG = os.environ.get("SCRIPTED_AGENT_LOG")
STDIN_COPY = os.environ.get("SCRIPTED_AGENT_STDIN_COPY")
_next_id = 1000


def log(entry: dict[str, Any]) -> None:
    if LOG:
        with open(LOG, "a", encoding="utf-8") as handle:
            handle.write(json.dumps(entry) + "\n")


def write(data: bytes) -> None:
    sys.stdout.buffer.write(data + b"\n")
    sys.stdout.buffer.flush()


def send(message: dict[str, Any]) -> None:
    write(json.dumps({"jsonrpc": "2.0", **message}).encode())


def read() -> dict[str, Any] | None:
    line = sys.stdin.buffer.readline()
    if STDIN_COPY:
        with open(STDIN_COPY, "ab") as handle:
            handle.write(line)
    if not line:
        return None
    message: dict[str, Any] = json.loads(line)
    log({"received": message})
    return message


def steps() -> list[dict[str, Any]]:
    if "SCRIPTED_AGENT_STEPS_FILE" in os.environ:
        with open(os.environ["SCRIPTED_AGENT_STEPS_FILE"], encoding="utf-8") as handle:
            played: list[dict[str, Any]] = json.load(handle)
            return played
    played = json.loads(os.environ.get("SCRIPTED_AGENT_STEPS", "[]"))
    return played


def fill(value: Any, index: int) -> Any:
    if isinstance(value, str):
        return value.replace("{n}", str(index))
    if isinstance(value, dict):
        return {k: fill(v, index) for k, v in value.items()}
    return value


def notify(session_id: str, update: dict[str, Any]) -> None:
    send({"method": "session/update", "params": {"sessionId": session_id, "update": update}})


def play_update(step: dict[str, Any], session_id: str) -> None:
    for index in range(step.get("repeat", 1)):
        notify(session_id, fill(step["update"], index))


def play_request(step: dict[str, Any], session_id: str) -> None:
    global _next_id
    _next_id += 1
    send({"id": _next_id, "method": step["request"], "params": step.get("params", {})})
    while (message := read()) is not None:
        if message.get("id") == _next_id and "method" not in message:
            log({"response": message})
            break


def play_stderr(text: str) -> None:
    sys.stderr.write(text + "\n")
    sys.stderr.flush()


def play_wait_file(path: str) -> None:
    while not os.path.exists(path):
        time.sleep(0.02)


def play_exit(code: int) -> None:
    sys.stdout.flush()
    os._exit(code)


# each step is a dict whose first known key (in this order) says what it does
STEPS: dict[str, Callable[[dict[str, Any], str], None]] = {
    "raw": lambda step, _: write(step["raw"].encode()),
    "raw_hex": lambda step, _: write(bytes.fromhex(step["raw_hex"])),
    "update": play_update,
    "request": play_request,
    "stderr": lambda step, _: play_stderr("chatter " * (step["stderr"] // 8)),
    "stderr_text": lambda step, _: play_stderr(step["stderr_text"]),
    "env": lambda step, session_id: notify(
        session_id, {"sessionUpdate": "notice", "severity": "info", "title": os.environ.get(step["env"], "<unset>")}
    ),
    "sleep": lambda step, _: time.sleep(step["sleep"]),
    "wait_file": lambda step, _: play_wait_file(step["wait_file"]),
    "exit": lambda step, _: play_exit(step["exit"]),
}


def play(session_id: str) -> None:
    for step in steps():
        kind = next((key for key in STEPS if key in step), None)
        if kind is not None:
            STEPS[kind](step, session_id)


def main() -> int:
    while (message := read()) is not None:
        method = message.get("method")
        if method == "initialize":
            send({"id": message["id"], "result": {"protocolVersion": 1, "agentCapabilities": {}}})
        elif method == "session/new":
            send({"id": message["id"], "result": {"sessionId": "scripted-1"}})
            play("scripted-1")
        elif method == "session/prompt":
            send({"id": message["id"], "result": {"stopReason": "end_turn"}})
        elif "id" in message and method is not None:
            send({"id": message["id"], "error": {"code": -32601, "message": "Method not found"}})
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
