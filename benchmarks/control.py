"""The control path: `acp-tray status` from the shell, and what the daemon adds to a prompt.

Every figure has a peer measured in the same run, interleaved, because this machine is noisy
(2 cores): the figures that matter are the ratios and differences.

    python benchmarks/control.py [--quick] [--runs 30] [--prompts 200]

Starts its own headless daemon (temp XDG config/state/runtime dirs, `notifier = "console"`, one
agent: the bundled demo agent, its notices held back with ACP_TRAY_DEMO_INTERVAL=3600) and measures:
1. `python -m acp_tray status` as a whole process (wall clock, process start included), median and
   p90, against the interpreter floor (`python -c pass`) and a stdlib-only client doing the same
   status round trip on the socket; checks with `-X importtime` that status does not import the
   ACP SDK, pydantic, pystray or tomlkit (exit 1 if it does);
2. sequential `session/prompt` round trips to the demo agent driven directly (the SDK's
   `Connection` over stdio, as the daemon's own host does) vs. the same prompt through the daemon
   over the control socket, in-process (`control.client.request`, so no CLI process start is
   counted); the reply's chunks are collected on both sides. The daemon side includes the
   "demo finished" notice each turn produces, routed through presentation, history and the
   console notifier. For completeness: `acp-tray prompt demo hi` as a whole process, interleaved
   with the status runs of part 1.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import math
import os
import re
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from queue import Empty
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.support.daemons import DaemonProcess  # noqa: E402

AGENT = "demo"
TEXT = "hi"
REPLY = "Hello from the acp-tray demo agent"
WARM_UP = 5
AGENT_COMMAND = [sys.executable, "-m", "acp_tray", "demo-agent"]
HEAVY = ("acp", "pydantic", "pydantic_core", "pystray", "tomlkit")
XDG = ("XDG_CONFIG_HOME", "XDG_STATE_HOME", "XDG_CACHE_HOME", "XDG_DATA_HOME", "XDG_RUNTIME_DIR")

# the same status round trip with nothing but the standard library: the least a client can cost
STDLIB_CLIENT = """\
import json, os, socket
s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
s.connect(os.path.join(os.environ["XDG_RUNTIME_DIR"], "acp-tray", "control.sock"))
s.sendall(b'{"v":1,"op":"status","args":{}}\\n')
assert json.loads(s.makefile("rb").readline())["ok"]
"""


def pct(values: list[float], q: float) -> float:
    """Nearest-rank percentile."""
    ordered = sorted(values)
    return ordered[max(0, math.ceil(q * len(ordered)) - 1)]


def ms(seconds: list[float]) -> list[float]:
    return [s * 1000 for s in seconds]


# the daemon ---------------------------------------------------------------------------------


class DaemonProcess(DaemonProcess):
    """`python -m acp_tray run --headless` in its own process group, its output read by threads."""

    def __init__(self, env: dict[str, str]) -> None:
        super().__init__("run", "--headless", env=env, own_group=True)

    def wait_for(self, needle: str, timeout: float = 60.0) -> None:
        self.wait_for_line(needle, timeout)

    def drain(self) -> None:
        with contextlib.suppress(Empty):
            while True:
                self.seen.append(self.lines.get_nowait())

    def stop(self, env: dict[str, str]) -> None:
        """`acp-tray quit`, then the whole process group killed if it has not gone within 15 s."""
        if self.proc.poll() is None:
            with contextlib.suppress(subprocess.TimeoutExpired):
                subprocess.run([sys.executable, "-m", "acp_tray", "quit"], capture_output=True, env=env, timeout=15)
            try:
                self.proc.wait(15)
            except subprocess.TimeoutExpired:
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(self.proc.pid, signal.SIGKILL)
                self.proc.wait(5)
        self.drain()


@contextlib.contextmanager
def isolated_environment() -> Iterator[dict[str, str]]:
    """Temp XDG dirs set in this process (the in-process client finds the socket through them) and
    returned as the children's environment; everything restored and removed afterwards."""
    saved = dict(os.environ)
    tmp = tempfile.mkdtemp(prefix="acp-bench-")
    try:
        for name in XDG:
            path = Path(tmp) / name.lower()
            path.mkdir(mode=0o700)
            os.environ[name] = str(path)
        os.environ["ACP_TRAY_DEMO_INTERVAL"] = "3600"  # no demo notices during the measurement
        os.environ["PYTHONUNBUFFERED"] = "1"
        # bytecode cached, as an installed package has it, in a temp dir (nothing written to the checkout)
        os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
        os.environ["PYTHONPYCACHEPREFIX"] = str(Path(tmp) / "pycache")
        from acp_tray.files import paths

        config = paths.config_file()
        config.parent.mkdir(parents=True, exist_ok=True)
        config.write_text(
            f'notifier = "console"\n\n[agents.{AGENT}]\ncommand = {json.dumps(AGENT_COMMAND)}\n', encoding="utf-8"
        )
        yield dict(os.environ)
    finally:
        os.environ.clear()
        os.environ.update(saved)
        shutil.rmtree(tmp, ignore_errors=True)


# 1. status (and prompt) from the shell ------------------------------------------------------------


def run_once(argv: list[str], env: dict[str, str]) -> tuple[float, str]:
    start = time.perf_counter()
    done = subprocess.run(argv, capture_output=True, text=True, env=env, cwd=ROOT)
    elapsed = time.perf_counter() - start
    if done.returncode != 0:
        raise RuntimeError(f"{argv[1:]} exited {done.returncode}: {done.stderr}")
    return elapsed, done.stdout


def status_imports(env: dict[str, str]) -> tuple[list[str], list[tuple[str, float]], float]:
    """With `-X importtime`: the heavy packages status imports, its heaviest top-level imports, total ms."""
    done = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "acp_tray", "status"], capture_output=True, text=True, env=env
    )
    if done.returncode != 0:
        raise RuntimeError(f"status -X importtime exited {done.returncode}: {done.stderr}")
    heavy: set[str] = set()
    top: list[tuple[str, float]] = []
    total = 0.0
    for line in done.stderr.splitlines():
        match = re.match(r"import time:\s+(\d+) \|\s+(\d+) \|( *)(\S+)", line)
        if match is None:
            continue
        own, cumulative, indent, name = int(match[1]), int(match[2]), match[3], match[4]
        total += own / 1000
        if name.split(".")[0] in HEAVY:
            heavy.add(name.split(".")[0])
        if len(indent) == 1:  # imported by the program itself, not by another module
            top.append((name, cumulative / 1000))
    top.sort(key=lambda item: -item[1])
    return sorted(heavy), top[:5], total


def measure_processes(env: dict[str, str], runs: int, uncached: dict[str, str] | None) -> dict[str, list[float]]:
    status = [sys.executable, "-m", "acp_tray", "status"]
    peers = {
        "status": (status, env),
        "version": ([sys.executable, "-m", "acp_tray", "--version"], env),
        "floor": ([sys.executable, "-c", "pass"], env),
        "stdlib": ([sys.executable, "-c", STDLIB_CLIENT], env),
        "prompt": ([sys.executable, "-m", "acp_tray", "prompt", AGENT, TEXT], env),
    }
    if uncached is not None:
        peers["uncached"] = (status, uncached)
    for argv, child_env in peers.values():  # warm the page cache, the bytecode cache and the daemon
        run_once(argv, child_env)
    times: dict[str, list[float]] = {name: [] for name in peers}
    for _ in range(runs):  # interleaved: noise hits every peer alike
        for name, (argv, child_env) in peers.items():
            elapsed, out = run_once(argv, child_env)
            if name == "prompt" and not out.startswith(REPLY):
                raise RuntimeError(f"acp-tray prompt printed {out!r}")
            times[name].append(elapsed)
    return {name: ms(values) for name, values in times.items()}


def cpu_seconds(pid: int) -> float | None:
    """User + system CPU of a process so far (Linux /proc; clock ticks, usually 10 ms), or None."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return None
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


# 2. a prompt, direct vs. through the daemon ------------------------------------------------------


class Direct:
    """The demo agent driven the way the daemon's host drives it: spawn_stdio_transport, our
    LineTransport, the SDK's Connection; reply chunks collected from session/update."""

    def __init__(self) -> None:
        self.chunks: list[str] = []
        self.connection: Any = None
        self.session_id = ""

    async def __call__(self, method: str, params: Any, is_notification: bool) -> Any:
        if method == "session/update":
            update = params.get("update", {}) if isinstance(params, dict) else {}
            if update.get("sessionUpdate") == "agent_message_chunk":
                self.chunks.append(update["content"]["text"])
        return None

    async def prompt(self) -> tuple[float, str]:
        from acp_tray.protocol.session import prompt_params

        self.chunks = []
        start = time.perf_counter()
        result = await self.connection.send_request("session/prompt", prompt_params(self.session_id, TEXT))
        elapsed = time.perf_counter() - start
        assert result.get("stopReason") == "end_turn", result
        return elapsed, "".join(self.chunks)


def via_daemon() -> tuple[float, str]:
    """One prompt over the control socket, in this process (no CLI process start)."""
    from acp_tray.control.client import request

    chunks: list[str] = []

    def on_event(event: dict[str, Any]) -> None:
        if event["event"] == "chunk":
            chunks.append(event["text"])

    payload = {"agent": AGENT, "text": TEXT, "session": None, "cwd": None, "wait": True}
    start = time.perf_counter()
    result = request("prompt", payload, on_event=on_event, timeout=30)
    elapsed = time.perf_counter() - start
    assert result["stop_reason"] == "end_turn", result
    return elapsed, "".join(chunks)


async def measure_prompts(env: dict[str, str], prompts: int, rounds: int, daemon_pid: int) -> dict[str, Any]:
    from acp.connection import Connection
    from acp.transports import spawn_stdio_transport

    from acp_tray.agents.transport import LineTransport
    from acp_tray.protocol.initialize import initialize_params_v1, new_session_params

    times: dict[str, list[float]] = {"direct": [], "daemon": []}
    replies: dict[str, set[str]] = {name: set() for name in times}
    daemon_cpu: float | None = 0.0
    program, *args = AGENT_COMMAND
    async with spawn_stdio_transport(program, *args, env=env, cwd=ROOT, stderr=subprocess.DEVNULL) as (
        reader,
        writer,
        _process,
    ):
        direct = Direct()
        transport = LineTransport(reader, writer, on_drop=lambda reason, line: None)
        direct.connection = Connection(direct, transport)
        try:
            await direct.connection.send_request("initialize", initialize_params_v1())
            answer = await direct.connection.send_request("session/new", new_session_params(str(Path.home())))
            direct.session_id = answer["sessionId"]
            for _ in range(WARM_UP):  # not counted
                await direct.prompt()
                via_daemon()
            for r in range(rounds):  # interleaved rounds: noise hits both sides alike
                share = prompts // rounds + (1 if r < prompts % rounds else 0)
                for _ in range(share):
                    elapsed, text = await direct.prompt()
                    times["direct"].append(elapsed)
                    replies["direct"].add(text)
                before = cpu_seconds(daemon_pid)
                for _ in range(share):
                    # blocking on purpose: the direct connection is idle meanwhile
                    elapsed, text = via_daemon()
                    times["daemon"].append(elapsed)
                    replies["daemon"].add(text)
                after = cpu_seconds(daemon_pid)
                if daemon_cpu is not None and before is not None and after is not None:
                    daemon_cpu += after - before
                else:
                    daemon_cpu = None
        finally:
            await direct.connection.close()
    return {"times": {name: ms(values) for name, values in times.items()}, "replies": replies, "cpu": daemon_cpu}


# the whole run ------------------------------------------------------------------------------------


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="a few runs only: proves the benchmark runs")
    parser.add_argument("--runs", type=int, default=None, help="runs of each process (default 30, quick 5)")
    parser.add_argument("--prompts", type=int, default=None, help="prompts per side (default 200, quick 20)")
    args = parser.parse_args()
    runs = args.runs or (5 if args.quick else 30)
    prompts = args.prompts or (20 if args.quick else 200)
    rounds = 2 if args.quick else 5

    saved_env = dict(os.environ)
    signal.signal(signal.SIGTERM, lambda signum, frame: sys.exit(128 + signum))  # clean up on the way out
    with isolated_environment() as env:
        from acp_tray.files import paths
        from acp_tray.state.history import read_history

        daemon = DaemonProcess(env)
        try:
            daemon.wait_for("control: ")
            daemon.wait_for(f"  {AGENT}  connected")
            # as this shell would run it, when bytecode is off here (the source then compiles on every start)
            uncached = None
            if "PYTHONDONTWRITEBYTECODE" in saved_env:
                uncached = {k: v for k, v in env.items() if k != "PYTHONPYCACHEPREFIX"}
                uncached["PYTHONDONTWRITEBYTECODE"] = "1"
            status = measure_processes(env, runs, uncached)
            heavy, top_imports, import_ms = status_imports(env)
            measured = asyncio.run(measure_prompts(env, prompts, rounds, daemon.proc.pid))
            records = read_history(paths.history_file())
            finished = sum(  # acp-tray's own info notice at each turn's end (its wording may change)
                isinstance(r, dict)
                and (r.get("source"), r.get("agent"), r.get("severity")) == ("acp-tray", AGENT, "info")
                for r in records
            )
        finally:
            daemon.stop(env)
        printed = sum(bool(re.match(rf"\d\d:\d\d:\d\d  {AGENT}  info\b", line)) for line in daemon.seen)
        if daemon.proc.returncode not in (0, -signal.SIGKILL):
            print(f"warning: the daemon exited {daemon.proc.returncode}: {daemon.err_lines[-5:]}", file=sys.stderr)

    times, replies = measured["times"], measured["replies"]
    for name, texts in replies.items():
        if len(texts) != 1 or not next(iter(texts)).startswith(REPLY):
            raise SystemExit(f"{name}: unexpected replies {texts!r}")
    if replies["direct"] != replies["daemon"]:
        raise SystemExit(f"direct and daemon replies differ: {replies['direct']!r} vs {replies['daemon']!r}")

    s, v, f, c = (statistics.median(status[k]) for k in ("status", "version", "floor", "stdlib"))
    print(f"status from the shell ({runs} runs each, interleaved, whole process, median / p90):")
    print(f"  acp-tray status            {s:6.1f} / {pct(status['status'], 0.9):6.1f} ms   (target: status < 150 ms)")
    print(
        f"  acp-tray --version         {v:6.1f} / {pct(status['version'], 0.9):6.1f} ms   (imports + parser, no socket)"
    )
    print(f"  python -c pass             {f:6.1f} / {pct(status['floor'], 0.9):6.1f} ms   (interpreter floor)")
    print(
        f"  stdlib socket client       {c:6.1f} / {pct(status['stdlib'], 0.9):6.1f} ms   (same round trip, stdlib only)"
    )
    if "uncached" in status:
        u = statistics.median(status["uncached"])
        print(
            f"  status, no bytecode cache  {u:6.1f} / {pct(status['uncached'], 0.9):6.1f} ms"
            "   (PYTHONDONTWRITEBYTECODE is set in this shell; the figures above cache it)"
        )
    print(f"  status / floor: {s / f:.2f}x · status / stdlib client: {s / c:.2f}x · above the floor: {s - f:.1f} ms")
    verdict = {
        pkg: ("yes" if pkg in heavy or (pkg == "pydantic" and "pydantic_core" in heavy) else "no")
        for pkg in ("acp", "pydantic", "pystray", "tomlkit")
    }
    print(
        f"  imports the SDK: {verdict['acp']} · pydantic: {verdict['pydantic']} · pystray: {verdict['pystray']}"
        f" · tomlkit: {verdict['tomlkit']}"
    )
    print(
        f"  -X importtime: {import_ms:.1f} ms of imports; heaviest: "
        + ", ".join(f"{name} {cumulative:.1f}" for name, cumulative in top_imports)
    )

    d, m = times["direct"], times["daemon"]
    dm, mm = statistics.median(d), statistics.median(m)
    print(f"a prompt to the demo agent ({prompts} each, sequential, {rounds} interleaved rounds, median / p99):")
    print(f"  direct (SDK Connection over stdio)     {dm:6.2f} / {pct(d, 0.99):6.2f} ms")
    print(f"  through the daemon (socket, in-proc)   {mm:6.2f} / {pct(m, 0.99):6.2f} ms")
    print(f"  daemon overhead per prompt: {mm - dm:.2f} ms median (target < 2 ms) · daemon / direct: {mm / dm:.2f}x")
    if measured["cpu"] is not None:
        print(f"  daemon CPU per prompt: {measured['cpu'] / prompts * 1e6:.0f} µs (/proc, clock ticks)")
    turns = prompts + WARM_UP + runs + 1  # + the warm-ups and the CLI prompts (one of them a warm-up)
    print(
        f"  no CLI process start counted; included: each turn's own 'finished' notice routed through"
        f" presentation, history and the console notifier ({finished} recorded for {turns} turns,"
        f" {printed} printed: repeats are coalesced)"
    )
    cm = statistics.median(status["prompt"])
    print(
        f"  `acp-tray prompt {AGENT} {TEXT}`, whole process, interleaved with status ({runs} runs):"
        f" {cm:.1f} / {pct(status['prompt'], 0.9):.1f} ms median / p90 · above direct: {cm - dm:.1f} ms"
        f" · above `acp-tray status`: {cm - s:+.1f} ms"
    )
    loaded = [pkg for pkg, answer in verdict.items() if answer == "yes"]
    if loaded:
        print(
            f"FAIL: `acp-tray status` imports {', '.join(loaded)}; it must stay standard library only", file=sys.stderr
        )
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
