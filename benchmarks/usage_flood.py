"""A `usage_update` flood against a notice flood, per message, on the real daemon; and the window's
stream stays live through it.

    python benchmarks/usage_flood.py [--quick] [--agents 20] [--rate 1000] [--seconds 5]

Two runs, each on a fresh `acp-tray run --headless` (temp XDG dirs, the console notifier) hosting
`--agents` real agent processes (benchmarks/agents/stress_agent.py, paced mode) that together send
`--rate` messages a second for `--seconds` seconds, evenly shared: first `usage_update`s (context
and cost growing, every tenth with claude's rate-limit meta), then, as the peer measured in the same
run, info notices. Each run has a `status --watch --json` follower attached (what the window and a
status bar read), and halfway through the flood the person switches do not disturb on: the time
from `acp-tray dnd on` starting until the follower sees it is printed beside the command's own
time (the stream is live, not buried behind the flood).

Printed: the daemon's CPU time per message (from /proc, from the flood's start until it is idle
again) for each kind, their ratio (usage / notices; the target is < 1: usage is state, it is not
routed, written to the history or shown), the watch lines received, and the DND latency.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks.control import DaemonProcess, isolated_environment  # noqa: E402
from benchmarks.flood import cpu_seconds, wait_idle  # noqa: E402

AGENT_SCRIPT = ROOT / "benchmarks" / "agents" / "stress_agent.py"


class Follower:
    """`acp-tray status --watch --json`: its lines counted, and when DND was first seen on."""

    def __init__(self, env: dict[str, str]) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "acp_tray", "status", "--watch", "--json"],
            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, env=env,
        )  # fmt: skip
        self.lines = 0
        self.dnd_on: float | None = None
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self.lines += 1
            if self.dnd_on is None and json.loads(line).get("dnd", "off").startswith("on"):
                self.dnd_on = time.monotonic()

    def stop(self) -> None:
        self.proc.kill()
        self.proc.wait(10)


def run(kind: str, agents: int, rate: float, seconds: float) -> dict[str, float]:
    with isolated_environment() as env:
        from acp_tray.files import paths

        tables = "".join(
            f"\n[agents.a{i}]\ncommand = {json.dumps([sys.executable, str(AGENT_SCRIPT)])}\n"
            f'env = {{ STRESS_MODE = "paced", STRESS_NAME = "a{i}" }}\n'
            for i in range(agents)
        )
        paths.config_file().write_text('notifier = "console"\nprotocol = 1\n' + tables, encoding="utf-8")
        daemon = DaemonProcess(env)
        try:
            daemon.wait_for("control: ")
            daemon.wait_for_lines(*(f"  a{i}  connected" for i in range(agents)), timeout=120)
            follower = Follower(env)
            time.sleep(1.0)
            wait_idle(daemon.proc.pid, 60)
            each = max(1, round(rate * seconds / agents))
            before, start = cpu_seconds(daemon.proc.pid), time.monotonic()
            prompts = [
                subprocess.Popen(
                    [sys.executable, "-m", "acp_tray", "prompt", f"a{i}", kind, str(each), str(rate / agents)],
                    stdout=subprocess.DEVNULL,
                    stderr=subprocess.DEVNULL,
                    env=env,
                )
                for i in range(agents)
            ]
            time.sleep(seconds / 2)
            asked = time.monotonic()
            subprocess.run([sys.executable, "-m", "acp_tray", "dnd", "on"], capture_output=True, env=env, timeout=60)
            command = time.monotonic() - asked
            for prompt in prompts:
                prompt.wait(seconds * 10 + 60)
            wait_idle(daemon.proc.pid, 120)
            used = cpu_seconds(daemon.proc.pid) - before
            follower.stop()
            live = (follower.dnd_on - asked) if follower.dnd_on is not None else float("nan")
            return {
                "messages": each * agents,
                "cpu_per_message_us": used / (each * agents) * 1e6,
                "wall": time.monotonic() - start,
                "watch_lines": follower.lines,
                "dnd_seen_after_s": live,
                "dnd_command_s": command,
            }
        finally:
            daemon.stop(env)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="4 agents, 200 a second, 2 s")
    parser.add_argument("--agents", type=int, default=20)
    parser.add_argument("--rate", type=float, default=1000.0)
    parser.add_argument("--seconds", type=float, default=5.0)
    args = parser.parse_args()
    agents, rate, seconds = (4, 200.0, 2.0) if args.quick else (args.agents, args.rate, args.seconds)
    print(f"{agents} agents, {rate:g} messages a second together, {seconds:g} s per flood", flush=True)
    results = {kind: run(kind, agents, rate, seconds) for kind in ("usage", "notices")}
    for kind, r in results.items():
        print(
            f"{kind:<8} {r['messages']:>6.0f} messages · daemon CPU {r['cpu_per_message_us']:.1f} µs per message"
            f" · {r['wall']:.1f} s · watch lines {r['watch_lines']:.0f} · DND seen by the watcher"
            f" {r['dnd_seen_after_s']:.2f} s after `dnd on` started (the command took {r['dnd_command_s']:.2f} s)",
            flush=True,
        )
    ratio = results["usage"]["cpu_per_message_us"] / results["notices"]["cpu_per_message_us"]
    print(f"usage / notices, CPU per message: {ratio:.2f}x (target < 1)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
