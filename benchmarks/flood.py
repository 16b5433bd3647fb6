"""One agent floods the real daemon with notices while a prompt is in flight, on a real dunst.

    python benchmarks/flood.py [--quick] [--count 100000] [--tray-count 300] [--guard-mb 1024] [--guard-s 300]

Starts its own Xvfb + private session bus + dunst (tests/desktop/session.py; dunst draws, its
history kept long enough to count everything) and `acp-tray run` (not headless: `notifier =
"auto"`, so native notifications are real D-Bus `Notify` calls to dunst; the default rate limit,
burst 5 per 10 s; fresh temp XDG config/state/runtime dirs for each daemon). Its one agent,
benchmarks/agents/stress_agent.py (a real subprocess on the ACP SDK's `Connection`), starts the
flood when `acp-tray prompt flood go` arrives: `--count` notices as fast as it can ("flood N", all
distinct, so coalescing does not fold them), the reply streamed during the flood and finished after.

The tray: with a display, `acp-tray run` also shows its pystray icon and hands it a new menu for
every notice, which costs tens of ms of CPU and most of a MB that is never given back per notice
(measured here: part B). A 100,000-notice flood through it would not end on this machine, so:
A. the full flood runs with the daemon given no DISPLAY: it says "tray: none (no display)" and
   still sends every native notification to dunst over the session bus; everything else is as a
   person runs it;
B. a small flood (`--tray-count`) runs twice, each on a fresh daemon: with the tray icon (pystray,
   here its AppIndicator backend on the Xvfb session, no tray host running) and without it, and
   their CPU, memory and time to idle are printed side by side. A daemon that grows by more than
   `--guard-mb` or is still busy after `--guard-s` is killed and the run reported as cut short.

Measured and printed for A, each against its bound or peer:
1. native notifications dunst received (its history, after closing everything) vs. what the token
   bucket allows: burst + elapsed x burst/per (the overflow summaries take tokens from the same
   bucket) + acp-tray's own notices (not counted against an agent: here the turn's "Finished");
   the looser bound burst + elapsed/per x burst + summaries is printed too;
2. the daemon's peak RSS growth: VmHWM after the flood minus VmRSS before it (/proc/PID/status),
   target < 20 MB; and what stays resident once idle;
3. that the reply arrives: `acp-tray prompt` exits 0 and printed every part and "flood done";
4. time until the daemon is idle again: its CPU time (/proc/PID/stat utime+stime) stops growing
   (<= 2 clock ticks in a 1 s window), from the flood's start and from its end;
5. notices/s: the agent's rate into a no-op consumer (the same agent and flood read by a plain
   `json.loads` loop in this process: the "notices/s the agent can produce" baseline, measured
   before and after the daemon runs) vs. the daemon's processed rate (count / (history time of the
   last flood notice - flood start)), as a ratio; and the agent's own send rate against the daemon;
6. the history: bytes per file, records surviving the rotation (2 MB x (1 + 3 backups), by design:
   the history is a bounded local log), and, from a reader following the file through its
   rotations while the flood runs, that every one of the notices was recorded, once, in order.
The exit status is 1 when a bound of A is missed or B was cut short by a guard.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.desktop.session import DesktopSession  # noqa: E402
from tests.support.daemons import DaemonProcess  # noqa: E402

AGENT = "flood"
AGENT_SCRIPT = ROOT / "benchmarks" / "agents" / "stress_agent.py"
XDG = ("XDG_CONFIG_HOME", "XDG_STATE_HOME", "XDG_CACHE_HOME", "XDG_DATA_HOME", "XDG_RUNTIME_DIR")
BURST, PER = 5, 10.0  # the default rate limit (prefs/model.py RateLimitPrefs)
CHUNKS = 10
IDLE_WINDOW = 1.0  # seconds without CPU growth (<= IDLE_TICKS) that count as idle
IDLE_TICKS = 2
SAMPLE_EVERY = 0.05
DUNSTRC = """\
# dunst for the flood benchmark: draws as usual; keeps a long history, so that everything it
# was sent can be counted after closing what is on screen (and what waits behind it)
[global]
    history_length = 100000
    sticky_history = yes
    idle_threshold = 0
    show_indicators = no

[urgency_low]
    timeout = 1
[urgency_normal]
    timeout = 1
[urgency_critical]
    timeout = 1
"""
FLOOD_TITLE = re.compile(rb'"title":"flood (\d+)"')


# /proc ------------------------------------------------------------------------------------------


def clock_tick() -> float:
    return 1.0 / os.sysconf("SC_CLK_TCK")


def cpu_seconds(pid: int) -> float:
    """User + system CPU of a process so far (all its threads; clock ticks, usually 10 ms)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) * clock_tick()


def memory_kb(pid: int) -> dict[str, int]:
    """VmRSS and VmHWM (peak resident set) in kB."""
    values = {}
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        key, _, rest = line.partition(":")
        if key in ("VmRSS", "VmHWM"):
            values[key] = int(rest.split()[0])
    return values


def wait_idle(pid: int, timeout: float, check: Callable[[], None] | None = None) -> float:
    """Block until the process used <= IDLE_TICKS of CPU in the last IDLE_WINDOW seconds; return
    the wall time (time.time()) at which that quiet window began. `check` runs at every sample."""
    samples: list[tuple[float, float]] = []
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if check is not None:
            check()
        now = time.time()
        samples.append((now, cpu_seconds(pid)))
        window = [s for s in samples if s[0] >= now - IDLE_WINDOW - 1e-9]
        if now - samples[0][0] >= IDLE_WINDOW and window[-1][1] - window[0][1] <= IDLE_TICKS * clock_tick() + 1e-9:
            return window[0][0]
        time.sleep(SAMPLE_EVERY)
    raise RuntimeError(f"the daemon did not go idle within {timeout:.0f} s")


# the history, followed through its rotations -------------------------------------------------------


@dataclass
class HistoryFollower:
    """Reads history.jsonl as it is written, across RotatingFileHandler's renames (the file it holds
    open stays readable after a rename or unlink), and checks the flood's records: each index once, in
    order. Runs on a thread."""

    path: Path
    expected: int = 0  # the next flood index
    records: int = 0
    anomalies: list[str] = field(default_factory=list)
    files: int = 0
    _stop: threading.Event = field(default_factory=threading.Event)
    _thread: threading.Thread | None = None

    def start(self) -> None:
        self._thread = threading.Thread(target=self._run, name="history-follower", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(30)

    def _take(self, data: bytes) -> None:
        self.records += data.count(b"\n")
        for match in FLOOD_TITLE.finditer(data):
            index = int(match[1])
            if index != self.expected and len(self.anomalies) < 10:
                self.anomalies.append(f"flood {index} where flood {self.expected} was expected")
            self.expected = index + 1

    def _run(self) -> None:
        handle = None
        inode = None
        pending = b""
        while True:
            if handle is None:
                try:
                    handle = self.path.open("rb")
                except FileNotFoundError:
                    if self._stop.is_set():
                        break
                    time.sleep(0.005)
                    continue
                inode = os.fstat(handle.fileno()).st_ino
                self.files += 1
            data = handle.read()
            if data:
                data = pending + data
                cut = data.rfind(b"\n") + 1
                self._take(data[:cut])
                pending = data[cut:]
                continue
            try:
                current = os.stat(self.path).st_ino
            except FileNotFoundError:
                current = None
            if current != inode:  # rotated: the old file is complete (closed before the rename)
                rest = pending + handle.read()
                self._take(rest)
                pending = b""
                handle.close()
                handle = None
                continue
            if self._stop.is_set():
                break
            time.sleep(0.005)
        if handle is not None:
            self._take(pending + handle.read())
            handle.close()


# the peer: the same flood into a no-op consumer ---------------------------------------------------


def agent_env(count: int, stats: Path) -> dict[str, str]:
    return {
        "STRESS_MODE": "flood",
        "STRESS_NAME": AGENT,
        "FLOOD_COUNT": str(count),
        "FLOOD_CHUNKS": str(CHUNKS),
        "FLOOD_STATS": str(stats),
    }


def send_line(stream: Any, message: dict[str, Any]) -> None:
    stream.write(json.dumps({"jsonrpc": "2.0", **message}).encode() + b"\n")
    stream.flush()


def no_op_consumer(count: int, tmp: Path) -> float:
    """The flood agent driven by a plain reader: initialize, session/new, the prompt; then every line
    only `json.loads`-ed until the prompt's answer. Returns the agent's own notices/s."""
    stats = tmp / "peer-stats.json"
    proc = subprocess.Popen(
        [sys.executable, str(AGENT_SCRIPT)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        env={**os.environ, **agent_env(count, stats)},
        cwd=ROOT,
    )
    assert proc.stdin is not None and proc.stdout is not None
    try:
        send_line(proc.stdin, {"id": 0, "method": "initialize", "params": {"protocolVersion": 1}})
        assert "result" in json.loads(proc.stdout.readline())
        send_line(proc.stdin, {"id": 1, "method": "session/new", "params": {"cwd": str(tmp), "mcpServers": []}})
        session_id = json.loads(proc.stdout.readline())["result"]["sessionId"]
        prompt = {"sessionId": session_id, "prompt": [{"type": "text", "text": "go"}]}
        send_line(proc.stdin, {"id": 2, "method": "session/prompt", "params": prompt})
        notices = 0
        for line in proc.stdout:
            message = json.loads(line)
            if message.get("id") == 2:
                break
            if message.get("params", {}).get("update", {}).get("sessionUpdate") == "notice":
                notices += 1
        assert notices == count, f"the no-op consumer read {notices} notices, not {count}"
    finally:
        proc.stdin.close()
        proc.wait(10)
    done = json.loads(stats.read_text())
    return float(done["count"] / (done["end"] - done["start"]))


# the daemon run -----------------------------------------------------------------------------------


class GuardTrippedError(RuntimeError):
    """The daemon outgrew the run's memory or time guard: it was killed, the run is cut short."""


@contextlib.contextmanager
def xdg_dirs(base: Path) -> Iterator[None]:
    """Fresh XDG config/state/runtime dirs under `base`, set in this process (the CLI commands it runs
    and the daemon inherit them) and restored afterwards."""
    saved = {name: os.environ.get(name) for name in XDG}
    for name in XDG:
        path = base / name.lower()
        path.mkdir(mode=0o700, parents=True)
        os.environ[name] = str(path)
    try:
        yield
    finally:
        for name, value in saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value


@contextlib.contextmanager
def isolated_environment() -> Iterator[Path]:
    """A temp dir for the whole run, removed afterwards; this process's environment restored."""
    saved = dict(os.environ)
    tmp = Path(tempfile.mkdtemp(prefix="acp-flood-"))
    try:
        os.environ["PYTHONUNBUFFERED"] = "1"
        yield tmp
    finally:
        os.environ.clear()
        os.environ.update(saved)
        shutil.rmtree(tmp, ignore_errors=True)


def write_config(count: int, stats: Path) -> Path:
    from acp_tray.files import paths

    config = paths.config_file()
    config.parent.mkdir(parents=True, exist_ok=True)
    env = ", ".join(f"{k} = {json.dumps(v)}" for k, v in agent_env(count, stats).items())
    config.write_text(
        'notifier = "auto"\n\n'
        f"[agents.{AGENT}]\ncommand = {json.dumps([sys.executable, str(AGENT_SCRIPT)])}\n"
        f"protocol = 1\nenv = {{ {env} }}\n",
        encoding="utf-8",
    )
    return config


def shown_by_dunst(desktop: DesktopSession, mark: int) -> list[dict[str, Any]]:
    """Everything dunst was sent after `mark`: closes what is displayed until nothing waits behind it,
    then reads its history."""
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        desktop.close_all()
        time.sleep(0.1)
        counts = {what: desktop._dunstctl("count", what).stdout.strip() for what in ("waiting", "displayed")}
        if counts == {"waiting": "0", "displayed": "0"}:
            break
    return [item for item in desktop.history() if item["id"] > mark]


def kill_group(daemon: DaemonProcess) -> None:
    with contextlib.suppress(ProcessLookupError):
        os.killpg(daemon.proc.pid, signal.SIGKILL)
    daemon.proc.wait(10)


def stop_daemon(daemon: DaemonProcess) -> None:
    """`acp-tray quit`; the daemon's process group (its agent too) killed if it has not gone in 15 s."""
    if daemon.proc.poll() is None:
        with contextlib.suppress(subprocess.TimeoutExpired):
            subprocess.run([sys.executable, "-m", "acp_tray", "quit"], capture_output=True, timeout=15, cwd=ROOT)
        try:
            daemon.proc.wait(15)
        except subprocess.TimeoutExpired:
            kill_group(daemon)


def record_time(record: dict[str, Any]) -> float:
    return datetime.fromisoformat(record["time"]).timestamp()


class Guard:
    """Called while the flood runs: notes the daemon's peak resident set, and ends the run
    (GuardTrippedError) once it grew by more than `guard_mb` or took longer than `guard_s`."""

    def __init__(self, pid: int, rss_before: int, started: float, guard_mb: float, guard_s: float) -> None:
        self.pid, self.rss_before, self.started = pid, rss_before, started
        self.guard_mb, self.guard_s = guard_mb, guard_s
        self.peak_rss = rss_before

    def __call__(self) -> None:
        rss = memory_kb(self.pid)["VmRSS"]
        self.peak_rss = max(self.peak_rss, rss)
        if (rss - self.rss_before) / 1024 > self.guard_mb:
            raise GuardTrippedError(f"RSS grew by {(rss - self.rss_before) / 1024:.0f} MB (guard {self.guard_mb:g} MB)")
        if time.time() - self.started > self.guard_s:
            raise GuardTrippedError(f"still busy after {self.guard_s:g} s (guard)")


def daemon_run(
    count: int, base: Path, desktop: DesktopSession, *, tray: bool, guard_mb: float, guard_s: float
) -> dict[str, Any]:
    """One `acp-tray run` (fresh XDG dirs), one flood of `count` during `acp-tray prompt flood go`.
    Without `tray` the daemon gets no DISPLAY: it runs without a tray icon (as it says) and still
    sends its native notifications to dunst on the session bus."""
    from acp_tray.files import paths
    from acp_tray.state.history import history_files, read_history

    out: dict[str, Any] = {"count": count, "aborted": None}
    with xdg_dirs(base):
        stats = base / "flood-stats.json"
        write_config(count, stats)
        env = {**os.environ, **desktop.env}
        if not tray:
            env.pop("DISPLAY", None)
        daemon = DaemonProcess("run", env=env, own_group=True)
        prompt: subprocess.Popen[str] | None = None
        follower = HistoryFollower(paths.history_file())
        try:
            out["notifier"] = daemon.wait_for_line("notifications:", 60).removeprefix("notifications: ")
            out["tray"] = next((line for line in daemon.seen if line.startswith("tray:")), "tray: ?")
            daemon.wait_for_line(f"  {AGENT}  connected", 60)
            pid = daemon.proc.pid
            wait_idle(pid, 60)
            before = memory_kb(pid)
            cpu_before = cpu_seconds(pid)
            mark = desktop.mark()
            follower.start()
            out["prompt_start"] = time.time()
            guard = Guard(pid, before["VmRSS"], out["prompt_start"], guard_mb, guard_s)
            prompt = subprocess.Popen(
                [sys.executable, "-m", "acp_tray", "prompt", AGENT, "go"],
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=True,
                cwd=ROOT,
            )
            replied = threading.Thread(target=lambda: out.update(reply=prompt.communicate()), daemon=True)
            replied.start()
            try:
                while prompt.poll() is None:  # sample the resident set while the flood runs
                    guard()
                    time.sleep(SAMPLE_EVERY)
                out["reply_at"] = time.time()
                replied.join(10)
                out["prompt_exit"] = prompt.returncode
                out["idle_at"] = wait_idle(pid, guard_s, guard)
            except GuardTrippedError as exc:
                out["aborted"] = str(exc)
                out["aborted_after"] = time.time() - out["prompt_start"]
                out["after"] = memory_kb(pid)
                out["cpu"] = cpu_seconds(pid) - cpu_before
                kill_group(daemon)
                prompt.wait(10)
            else:
                out["cpu"] = cpu_seconds(pid) - cpu_before
                time.sleep(PER / BURST + 0.5)  # the last overflow summary is due within one token's time
                out["shown"] = shown_by_dunst(desktop, mark)
                out["counted_at"] = time.time()
                out["after"] = memory_kb(pid)
            out["peak_sampled"] = guard.peak_rss
            out["before"] = before
            follower.stop()
            if stats.exists():
                out["flood"] = json.loads(stats.read_text())
            records = [r for r in read_history(paths.history_file()) if isinstance(r, dict)]
            out["files"] = [(f.name, f.stat().st_size) for f in history_files(paths.history_file())]
        finally:
            follower.stop()
            stop_daemon(daemon)
            if prompt is not None and prompt.poll() is None:
                prompt.kill()
                prompt.wait()
    flood_records = [r for r in records if r.get("agent") == AGENT and str(r.get("title", "")).startswith("flood ")]
    if flood_records:
        out["last_processed"] = max(record_time(r) for r in flood_records)
    out.update(surviving=flood_records, follower=follower, daemon_exit=daemon.proc.returncode)
    return out


# the whole run ------------------------------------------------------------------------------------


def mb(kb: int) -> float:
    return kb / 1024


def report_flood(run: dict[str, Any], peer: float, peers: tuple[float, float]) -> bool:
    """The figures of the full flood (no tray); True when every bound is met."""
    count, flood, shown = run["count"], run["flood"], run["shown"]
    start, end = flood["start"], flood["end"]
    ok = True
    print(f"  daemon: acp-tray run · {run['tray']} · notifications: {run['notifier']}")

    # 1. native notifications vs. the rate limit
    summaries = [i for i in shown if re.fullmatch(rf"{AGENT}: \d+ more notices? from {AGENT}", i["summary"])]
    own = [i for i in shown if i["summary"].startswith(f"{AGENT}: Finished")]
    notices = [i for i in shown if re.fullmatch(rf"{AGENT}: flood \d+", i["summary"])]
    other = [i for i in shown if i not in summaries and i not in own and i not in notices]
    elapsed = run["counted_at"] - start
    strict = BURST + int(elapsed * BURST / PER) + len(own)
    loose = BURST + int(elapsed / PER * BURST) + len(summaries) + len(own)
    ok &= len(shown) <= strict
    print(
        f"native notifications dunst received: {len(shown)} ({len(notices)} flood notices, {len(summaries)}"
        f" overflow summaries, {len(own)} of acp-tray's own, {len(other)} other) in the {elapsed:.1f} s from the"
        " flood's start to the count"
    )
    print(
        f"  allowed: burst {BURST} + {elapsed:.1f} s x {BURST}/{PER:g} s (summaries take their tokens from the same"
        f" bucket) + {len(own)} own = {strict} -> {'within' if len(shown) <= strict else 'OVER'} the limit"
        f" · looser bound burst + elapsed/per x burst + summaries + own = {loose}"
    )
    held = sum(int(i["summary"].split()[1]) for i in summaries)  # "flood: 123 more notices from flood"
    print(
        f"  held back by the rate limit and counted in the summaries: {held:,} · + {len(notices)} shown"
        f" = {held + len(notices):,} of {count:,}"
    )

    # 2. memory
    before, after = run["before"], run["after"]
    growth = mb(after["VmHWM"] - before["VmRSS"])
    ok &= growth < 20
    print(
        f"daemon RSS: {mb(before['VmRSS']):.1f} MB before · peak (VmHWM) {mb(after['VmHWM']):.1f} MB"
        f" · {mb(after['VmRSS']):.1f} MB once idle"
    )
    print(
        f"  peak growth (VmHWM after - VmRSS before): {growth:.1f} MB (target < 20 MB)"
        f" · retained once idle: {mb(after['VmRSS'] - before['VmRSS']):+.1f} MB"
        f" · highest sampled every {SAMPLE_EVERY * 1000:.0f} ms: {mb(run['peak_sampled']):.1f} MB"
    )

    # 3. the reply
    stdout, stderr = run["reply"]
    parts = all(f"part {k}/{CHUNKS} " in stdout for k in range(1, CHUNKS + 1))
    done = f"flood done: {count} notices" in stdout
    ok &= run["prompt_exit"] == 0 and parts and done
    print(
        f"the prompt's reply: `acp-tray prompt {AGENT} go` exit {run['prompt_exit']} · all {CHUNKS} parts streamed"
        f" during the flood: {'yes' if parts else 'NO'} · last line after it: {'yes' if done else 'NO'}"
        f" · arrived {run['reply_at'] - end:+.2f} s after the agent's last notice"
        f" ({run['reply_at'] - run['prompt_start']:.2f} s after the prompt was sent)"
    )
    if stderr.strip():
        print(f"  prompt stderr: {stderr.strip()[:300]}")

    # 4. idle again
    print(
        f"daemon idle again (<= {IDLE_TICKS} CPU ticks in {IDLE_WINDOW:g} s): {run['idle_at'] - start:.2f} s after"
        f" the flood began, {run['idle_at'] - end:+.2f} s after the agent's last notice"
        f" · daemon CPU for the flood: {run['cpu']:.2f} s ({run['cpu'] / count * 1e6:.0f} µs per notice)"
    )

    # 5. throughput
    processed = count / (run["last_processed"] - start)
    sent = count / (end - start)
    print(
        f"notices/s: the agent into a no-op json.loads reader {peer:,.0f} (before {peers[0]:,.0f}, after"
        f" {peers[1]:,.0f}) · processed by the daemon {processed:,.0f} · daemon / no-op: {processed / peer:.2f}x"
    )
    print(
        f"  the agent's send rate against the daemon: {sent:,.0f}/s ({sent / peer:.2f}x the no-op peer: the"
        f" pipe's backpressure paces it) · the last notice processed {run['last_processed'] - end:+.2f} s after"
        " it was sent"
    )

    # 6. the history
    follower, surviving = run["follower"], run["surviving"]
    total = sum(size for _, size in run["files"])
    indices = sorted(int(r["title"].split()[1]) for r in surviving)
    contiguous = bool(indices) and indices == list(range(indices[0], indices[-1] + 1))
    all_recorded = follower.expected == count and not follower.anomalies
    ok &= all_recorded
    print(
        "history: "
        + " · ".join(f"{name} {size / 1024 / 1024:.2f} MB" for name, size in run["files"])
        + f" = {total / 1024 / 1024:.2f} MB in {len(run['files'])} files (rotation at 2 MB, 3 backups)"
    )
    print(
        f"  followed while written, through {follower.files} files: flood 0..{follower.expected - 1:,} each"
        f" recorded once, in order: {'yes' if all_recorded else 'NO: ' + '; '.join(follower.anomalies)}"
        f" ({follower.records:,} records in all)"
    )
    rotated = (
        "the older ones were rotated out: by design, the history is a bounded local log (4 x 2 MB)"
        if len(surviving) < count
        else "none rotated out yet (the history keeps up to 4 x 2 MB)"
    )
    print(
        f"  surviving the rotation: {len(surviving):,} of {count:,} (flood {indices[0]:,}..{indices[-1]:,},"
        f" contiguous: {'yes' if contiguous else 'NO'}); {rotated}"
    )
    return ok


def report_tray(tray: dict[str, Any], bare: dict[str, Any], tray_count: int) -> bool:
    """The same small flood with and without the tray; True when the tray run finished (no guard tripped)."""
    print(f"  with: {tray['tray']} · without: {bare['tray']}")
    if tray["aborted"]:
        print(
            f"  with the tray: ABORTED after {tray['aborted_after']:.1f} s: {tray['aborted']}"
            f" · daemon CPU by then {tray['cpu']:.2f} s"
        )
    for name, run in (("with the tray", tray), ("without", bare)):
        after, before = run["after"], run["before"]
        flood = run.get("flood")
        idle = f"{run['idle_at'] - flood['end']:+.2f} s" if "idle_at" in run and flood else "never (aborted)"
        exit_code = run.get("prompt_exit", "-")
        print(
            f"  {name:<13} daemon CPU {run['cpu']:6.2f} s ({run['cpu'] / tray_count * 1e3:6.2f} ms per notice)"
            f" · peak RSS growth {mb(after['VmHWM'] - before['VmRSS']):7.1f} MB"
            f" · retained {mb(after['VmRSS'] - before['VmRSS']):+7.1f} MB · idle again {idle} after the agent's"
            f" last notice · prompt exit {exit_code}"
        )
    # /proc counts CPU in clock ticks: a peer that used less than one tick is counted as one, so the
    # ratio is a lower bound then rather than "inf"
    tick = 1 / os.sysconf("SC_CLK_TCK")
    ratio = tray["cpu"] / max(bare["cpu"], tick)
    grown = mb(tray["after"]["VmHWM"] - tray["before"]["VmRSS"])
    print(
        f"  tray / without: {ratio:.1f}x the CPU · {grown / tray_count * 1024:.0f} kB of peak RSS per notice with the"
        f" tray (a 100,000-notice flood would need ~{grown / tray_count * 100_000 / 1024:.0f} GB)"
    )
    return not tray["aborted"]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="2,000 notices (50 with the tray): proves it runs")
    parser.add_argument("--count", type=int, default=None, help="notices in the flood (default 100000, quick 2000)")
    parser.add_argument(
        "--tray-count", type=int, default=None, help="notices in the flood with the tray (default 300, quick 50)"
    )
    parser.add_argument("--guard-mb", type=float, default=1024, help="kill a daemon whose RSS grows by more (MB)")
    parser.add_argument("--guard-s", type=float, default=300, help="kill a daemon still busy after this long (s)")
    args = parser.parse_args()
    count = args.count or (2000 if args.quick else 100_000)
    tray_count = args.tray_count or (50 if args.quick else 300)
    command = " ".join(["python benchmarks/flood.py", *sys.argv[1:]])
    signal.signal(signal.SIGTERM, lambda signum, frame: sys.exit(128 + signum))  # clean up on the way out

    with isolated_environment() as tmp:
        dunstrc = tmp / "dunstrc"
        dunstrc.write_text(DUNSTRC, encoding="utf-8")
        peer_before = no_op_consumer(count, tmp)
        with DesktopSession(dunstrc) as desktop:
            guards = {"guard_mb": args.guard_mb, "guard_s": args.guard_s}
            full = daemon_run(count, tmp / "full", desktop, tray=False, **guards)
            tray = daemon_run(tray_count, tmp / "tray", desktop, tray=True, **guards)
            bare = daemon_run(tray_count, tmp / "bare", desktop, tray=False, **guards)
        peer_after = no_op_consumer(count, tmp)

    print(f"flood: {count:,} notices from one agent during one prompt · reproduce: {command}")
    ok = not full["aborted"]
    if full["aborted"]:
        print(f"  ABORTED after {full['aborted_after']:.1f} s: {full['aborted']}")
    else:
        ok = report_flood(full, (peer_before + peer_after) / 2, (peer_before, peer_after))
    print(
        f"the tray: the same {tray_count:,}-notice flood through `acp-tray run` with its tray icon (pystray on this"
        " Xvfb session, as on a desktop) and without it, each a fresh daemon:"
    )
    ok &= report_tray(tray, bare, tray_count)
    for run in (full, tray, bare):
        if run["daemon_exit"] not in (0, -signal.SIGKILL):
            print(f"warning: a daemon exited {run['daemon_exit']}", file=sys.stderr)
    if not ok:
        print("FAIL: a bound above was not met", file=sys.stderr)
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
