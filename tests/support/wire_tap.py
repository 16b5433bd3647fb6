"""A tap on an agent's stdio, for checking what acp-tray sends a real agent: configured as the
agent's command (`python wire_tap.py LOG COMMAND...`), it runs COMMAND and passes every line both
ways unchanged, appending each to LOG as one JSON line, {"from": "client" | "agent", "line": ...}.

It is a script (run by path, standard library only): the agent runs in its own directory, where
the tests' package is not importable. SIGTERM and SIGINT are passed on to the agent, and the tap
ends with the agent's exit status.
"""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import threading
from pathlib import Path
from typing import IO, Any


def tap(log_path: Path, command: list[str]) -> int:
    agent = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    assert agent.stdin is not None and agent.stdout is not None
    for sig in (signal.SIGTERM, signal.SIGINT):
        signal.signal(sig, lambda received, _frame: agent.send_signal(received))
    lock = threading.Lock()

    with log_path.open("a", encoding="utf-8") as log:

        def record(side: str, line: bytes) -> None:
            with lock:
                log.write(json.dumps({"from": side, "line": line.decode("utf-8", "replace")}) + "\n")
                log.flush()

        def carry(source: IO[bytes], sink: IO[bytes], side: str) -> None:
            try:
                for line in source:
                    record(side, line)
                    sink.write(line)
                    sink.flush()
            except (BrokenPipeError, ValueError):  # the other side closed
                pass
            finally:
                if side == "client":
                    sink.close()  # the agent reads the end of its input, as without the tap

        threading.Thread(target=carry, args=(sys.stdin.buffer, agent.stdin, "client"), daemon=True).start()
        carry(agent.stdout, sys.stdout.buffer, "agent")
        return agent.wait()


def exchanges(log_path: Path) -> list[tuple[str, dict[str, Any]]]:
    """The JSON-RPC messages in `log_path`, in order, each with who wrote it ("client": acp-tray)."""
    if not log_path.exists():
        return []
    found = []
    for entry in log_path.read_text(encoding="utf-8").splitlines():
        record = json.loads(entry)
        if record["line"].strip():
            found.append((str(record["from"]), json.loads(record["line"])))
    return found


if __name__ == "__main__":
    sys.exit(tap(Path(sys.argv[1]), sys.argv[2:]))
