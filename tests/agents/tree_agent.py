"""A launcher agent, like an npm wrapper around a native binary: the ACP agent is its child.

    tree_agent.py MODE [AGENT COMMAND...]     (default agent: session_agent.py)

MODE:
  wrap  start the agent as a child sharing our stdio, and wait for it. The child ignores stdin EOF
        (after its connection ends it stays) and SIGTERM: only SIGKILL ends it.
  fork  start that child, then exit at once: the orphan keeps the pipes and goes on talking.
Every process of the tree writes its pid to a file in $TREE_AGENT_PIDS.
"""

from __future__ import annotations

import contextlib
import os
import runpy
import signal
import subprocess
import sys
import time
from pathlib import Path

SESSION_AGENT = Path(__file__).with_name("session_agent.py")


def note_pid() -> None:
    pids = os.environ.get("TREE_AGENT_PIDS")
    if pids:
        Path(pids, str(os.getpid())).write_text(sys.argv[1], encoding="utf-8")


def child() -> None:
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    note_pid()
    sys.argv = [str(SESSION_AGENT)]
    with contextlib.suppress(SystemExit):
        runpy.run_path(str(SESSION_AGENT), run_name="__main__")
    while True:  # stdin is closed: a well-behaved agent would exit; this one stays
        time.sleep(3600)


def main() -> None:
    mode = sys.argv[1]
    if mode == "child":
        child()
        return
    note_pid()
    agent = subprocess.Popen([sys.executable, __file__, "child"])
    if mode == "fork":
        os._exit(0)
    sys.exit(agent.wait())


if __name__ == "__main__":
    main()
