"""An agent that writes to stderr without pause: the daemon's CPU against the writer's own.

    python benchmarks/stderr_flood.py [--seconds 10]

Runs `acp-tray run --headless` (fresh temp XDG dirs) with one agent: the bundled demo agent
plus a thread writing 129-byte lines to its stderr as fast as it can (500 lines a write). After the agent connects,
CPU time (utime + stime from /proc) of the daemon and of the agent is measured over `--seconds`,
and the daemon's RSS. Printed: the daemon's CPU %, the agent's (the peer, same run), their ratio,
and the stderr bytes the writer got through (the daemon takes a flood at a bounded rate; beyond
it the writer waits on its own writes).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

WRITER = (
    "import os, sys, threading\n"
    "count = [0]\n"
    "def flood():\n"
    "    line = (b'chatter ' * 16 + b'\\n') * 500\n"
    "    while True:\n"
    "        os.write(2, line)\n"
    "threading.Thread(target=flood, daemon=True).start()\n"
    "from acp_tray.cli import main\n"
    "sys.exit(main(['demo-agent']))\n"
)


def cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--seconds", type=float, default=10.0)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        env = dict(os.environ, PYTHONUNBUFFERED="1", ACP_TRAY_DEMO_INTERVAL="3600")
        for name in ("XDG_CONFIG_HOME", "XDG_STATE_HOME", "XDG_CACHE_HOME", "XDG_RUNTIME_DIR"):
            env[name] = os.path.join(tmp, name.lower())
            os.mkdir(env[name], 0o700)
        config = Path(env["XDG_CONFIG_HOME"]) / "acp-tray" / "config.toml"
        config.parent.mkdir()
        config.write_text(
            f'notifier = "console"\n[agents.chatty]\ncommand = {json.dumps([sys.executable, "-c", WRITER])}\n'
        )
        daemon = subprocess.Popen(
            [sys.executable, "-m", "acp_tray", "run", "--headless"],
            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, env=env,
        )  # fmt: skip
        try:
            assert daemon.stdout is not None
            for line in daemon.stdout:
                if "chatty  connected" in line:
                    break
            agent = int(Path(f"/proc/{daemon.pid}/task/{daemon.pid}/children").read_text().split()[0])
            d0, a0, t0 = cpu_seconds(daemon.pid), cpu_seconds(agent), time.monotonic()
            time.sleep(args.seconds)
            d1, a1, t1 = cpu_seconds(daemon.pid), cpu_seconds(agent), time.monotonic()
            wall = t1 - t0
            daemon_cpu, agent_cpu = (d1 - d0) / wall * 100, (a1 - a0) / wall * 100
            print(f"daemon CPU {daemon_cpu:.0f} % · agent (writer, peer) CPU {agent_cpu:.0f} % · "
                  f"ratio {daemon_cpu / max(agent_cpu, 1e-9):.2f} · daemon RSS {rss_mb(daemon.pid):.0f} MB "
                  f"over {wall:.1f} s")  # fmt: skip
        finally:
            daemon.terminate()
            daemon.wait(30)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
