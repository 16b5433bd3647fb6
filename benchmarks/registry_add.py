"""Pairing a real agent from the ACP Registry: `acp-tray agents add ID` until it has connected,
against its peer measured in the same run, interleaved: the registry's own command (`npx -y
PKG@VERSION`) started by hand and sent `initialize`, then `session/new`, until that is answered
(the handshake acp-tray's host does before it calls an agent connected, or says it needs a sign-in).

    python benchmarks/registry_add.py [--quick] [--runs 3]

Each run of acp-tray has a fresh headless daemon (temp XDG dirs, `notifier = "console"`, a
registry document served on 127.0.0.1 with the pinned codex-acp and claude-agent-acp as npx
entries); the daemon's own start is not counted, the CLI process's is. npm's cache is the
machine's (warm after the first run): the figure is acp-tray's cost on top of npx's.
Needs npx and the npm registry (or npm's cache). As root the Claude adapter gets IS_SANDBOX=1.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.support.registry_server import RegistryServer, entry  # noqa: E402

PINNED = json.loads((ROOT / "tests" / "real_agents" / "package.json").read_text())["dependencies"]
AGENTS = {
    "codex-acp": "@zed-industries/codex-acp",
    "claude-acp": "@zed-industries/claude-agent-acp",
}
INITIALIZE = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": 1}}
SESSION_NEW = {
    "jsonrpc": "2.0", "id": 2, "method": "session/new", "params": {"cwd": str(Path.home()), "mcpServers": []}
}  # fmt: skip


def _env(home: Path) -> dict[str, str]:
    env = {**os.environ, "PYTHONUNBUFFERED": "1", "IS_SANDBOX": "1"}
    for name in ("XDG_CONFIG_HOME", "XDG_STATE_HOME", "XDG_CACHE_HOME", "XDG_DATA_HOME", "XDG_RUNTIME_DIR"):
        (home / name).mkdir(mode=0o700)
        env[name] = str(home / name)
    return env


def with_acp_tray(agent_id: str, registry_url: str) -> float:
    home = Path(tempfile.mkdtemp(prefix="acp-tray-bench-"))
    env = _env(home)
    config = home / "XDG_CONFIG_HOME" / "acp-tray" / "config.toml"
    config.parent.mkdir(parents=True)
    config.write_text(f'notifier = "console"\nregistry = "{registry_url}"\n')
    daemon = subprocess.Popen(
        [sys.executable, "-m", "acp_tray", "run", "--headless"],
        env=env, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, start_new_session=True,
    )  # fmt: skip
    try:
        assert daemon.stdout is not None
        while "control: " not in daemon.stdout.readline():
            pass
        started = time.perf_counter()
        added = subprocess.run(
            [sys.executable, "-m", "acp_tray", "agents", "add", agent_id], env=env, capture_output=True, text=True
        )
        took = time.perf_counter() - started
        if added.returncode != 0:
            raise RuntimeError(f"agents add {agent_id}: {added.stderr}")
        subprocess.run([sys.executable, "-m", "acp_tray", "quit"], env=env, capture_output=True)
        daemon.wait(30)
        return took
    finally:
        # the whole group: npx's own children outlive the npx process the daemon stops
        with contextlib.suppress(ProcessLookupError):
            os.killpg(daemon.pid, signal.SIGKILL)
        daemon.wait()
        shutil.rmtree(home, ignore_errors=True)


def by_hand(package: str) -> float:
    """The registry's command, started directly, until it has answered `initialize` and `session/new`."""
    started = time.perf_counter()
    agent = subprocess.Popen(
        ["npx", "-y", package], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
        env={**os.environ, "IS_SANDBOX": "1"}, start_new_session=True,
    )  # fmt: skip
    try:
        assert agent.stdin is not None and agent.stdout is not None
        for request in (INITIALIZE, SESSION_NEW):
            agent.stdin.write(json.dumps(request) + "\n")
            agent.stdin.flush()
            while True:
                line = agent.stdout.readline()
                if not line:
                    raise RuntimeError(f"{package} ended without answering {request['method']}")
                if json.loads(line).get("id") == request["id"]:
                    break
        return time.perf_counter() - started
    finally:
        os.killpg(agent.pid, signal.SIGKILL)
        agent.wait(10)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--quick", action="store_true", help="one run each")
    args = parser.parse_args()
    runs = 1 if args.quick else args.runs
    server = RegistryServer()
    try:
        packages = {agent_id: f"{name}@{PINNED[name]}" for agent_id, name in AGENTS.items()}
        url = server.publish(*(entry(i, p.rsplit("@", 1)[1], {"npx": {"package": p}}) for i, p in packages.items()))
        for agent_id, package in packages.items():
            ours, peer = [], []
            for _ in range(runs):  # interleaved: the machine's noise falls on both
                peer.append(by_hand(package))
                ours.append(with_acp_tray(agent_id, url))
            a, b = statistics.median(ours), statistics.median(peer)
            print(
                f"{agent_id} ({package}): agents add → connected {a:.2f} s · npx by hand → session/new answered "
                f"{b:.2f} s · ratio {a / b:.2f} · difference {a - b:+.2f} s (medians of {runs})"
            )
    finally:
        server.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
