"""An ACP v1 agent that goes deaf: it answers `initialize` and `session/new`, then never reads its
stdin again, but stays alive (an agent stuck in a long computation or a blocked thread).

Plain JSON lines on stdio, no SDK, so it starts fast. Environment:
  DEAF_AGENT_SESSIONS=N   answer N `session/new` requests before going deaf (default 1)
  DEAF_AGENT_LOG=PATH     append each method received, and "deaf" when it stops reading
It exits on SIGTERM (as any agent asked to stop would); closing its stdin is not seen.
"""

from __future__ import annotations

import json
import os
import signal
import sys
from typing import Any

LOG = os.environ.get("DEAF_AGENT_LOG")


def log(entry: dict[str, Any]) -> None:
    if LOG:
        with open(LOG, "a", encoding="utf-8") as handle:
            handle.write(json.dumps(entry) + "\n")


def answer(request_id: Any, result: dict[str, Any]) -> None:
    sys.stdout.write(json.dumps({"jsonrpc": "2.0", "id": request_id, "result": result}) + "\n")
    sys.stdout.flush()


def main() -> None:
    sessions_left = int(os.environ.get("DEAF_AGENT_SESSIONS", "1"))
    created = 0
    for line in sys.stdin:
        message = json.loads(line)
        method = message.get("method")
        log({"method": method, "pid": os.getpid()})
        if method == "initialize":
            answer(message["id"], {"protocolVersion": 1, "agentCapabilities": {"loadSession": False}})
        elif method == "session/new":
            created += 1
            answer(message["id"], {"sessionId": f"deaf-{created}-{os.getpid()}"})
            if created >= sessions_left:
                break
    log({"method": "deaf", "pid": os.getpid()})
    while True:  # alive, never reading stdin again
        signal.pause()


if __name__ == "__main__":
    main()
