"""Tray start-up and idle cost with connected, settled agents, against a bare pystray icon in the same run.

    python benchmarks/tray_idle.py [--idle 60] [--agents 3] [--starts 3] [--check]

Under Xvfb + a private session bus + dunst + trayer (all started here, torn down by PID), for
`acp-tray run` with N bundled demo agents (the default notifier: freedesktop on dunst) and for a
bare pystray icon (same backend, same image), measures:
1. start to the icon visible in the tray (screenshots of trayer's strip; each costs ~0.1 s, so
   this is a bound from above), `--starts` times each, interleaved (the median is reported, and the
   ratio of the medians). GTK's visuals are cached on the root window first (see
   `warm_gdk_visuals`), as in any desktop session, so neither process pays for the GL probe; the
   sources are compiled to bytecode first, as an installed package's are (with
   PYTHONDONTWRITEBYTECODE set, every start would compile acp-tray's modules again). Each start is
   a first start (fresh directories), as the tracker's figure always was; the CPU seconds of each
   process's main thread until its icon showed are printed too, a figure the machine's load moves less;
2. settling (acp-tray only): the demo agents send 4 notices each right after connecting (here
   ACP_TRAY_DEMO_INTERVAL=0.05, so they come at once). The idle window starts only once all N
   agents are connected (`acp-tray status --json`), all 4*N notices are in the history, the popups
   that expire (the info and "other" notices: 5 and 10 s by default) have expired on dunst, and the
   daemon has used at most one clock tick (10 ms) of CPU in a second: the window holds connected,
   idle agents and nothing they said on arrival (each popup dunst closes in the window is a
   `NotificationClosed` signal: ~4 wake-ups through GLib's D-Bus thread, GTK's loop and asyncio's);
3. CPU seconds used over `--idle` seconds by the daemon process (its agents are reported apart)
   and its wake-ups (context switches of all its threads, `tests.support.wakeups`) in that window;
4. RSS at the end of the window, anonymous and file-backed (smaps_rollup), and PSS, for the
   daemon and, apart, its agents.
Targets (the project's tracker; acp-tray's own process against the bare icon of the same run):
visible at most 1.5x bare, RSS at most 1.25x bare, at most 10 wake-ups per 60 s idle, idle CPU
< 0.3 s per 60 s. With --check the exit status is 1 when a target is missed, and the missed
targets are named.
"""

from __future__ import annotations

import argparse
import compileall
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from PIL import Image

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.desktop.session import DesktopSession, stop_processes  # noqa: E402
from tests.support.wakeups import switches, wakeups  # noqa: E402

TARGET_VISIBLE_RATIO = 1.5  # start to icon visible, at most this times the bare icon's
TARGET_RSS_RATIO = 1.25  # RSS, at most this times the bare icon's
TARGET_CPU_PER_60 = 0.3  # CPU-s per 60 s idle
TARGET_WAKEUPS_PER_60 = 10  # wake-ups per 60 s idle, at most
NOTICES_PER_AGENT = 4  # acp_tray.demo.agent.DEMO_NOTICES
TICKS = os.sysconf("SC_CLK_TCK")

BARE = """
import pystray, sys
sys.path.insert(0, {src!r})
from acp_tray.tray.icon import render
pystray.Icon("bare", render(size=64), "bare", pystray.Menu(pystray.MenuItem("Quit", lambda i, it: i.stop()))).run()
"""


@dataclass
class Figures:
    visible: float = 0.0  # s from process start to the icon in the tray
    main_cpu: float = 0.0  # CPU-s of the main thread (the tray's) by then
    settle: float = 0.0  # s from the icon to settled (acp-tray only)
    cpu: float = 0.0  # CPU-s in the idle window, the process itself
    wakeups: int = 0  # context switches of its threads in the idle window
    rss: float = 0.0  # MB at the end of the window
    anon: float = 0.0
    file: float = 0.0
    pss: float = 0.0  # shared pages divided among the processes that map them
    agents_cpu: float = 0.0  # CPU-s of its child processes in the window
    agents_rss: list[float] = field(default_factory=list)  # MB each


def icon_visible(env: dict[str, str], shot: Path) -> bool:
    subprocess.run(["import", "-window", "root", str(shot)], env=env, check=True)
    image = Image.open(shot).convert("RGB")
    for y in range(0, 40, 2):
        for x in range(image.width - 120, image.width, 2):
            if image.getpixel((x, y)) == (43, 58, 85):
                return True
    return False


def warm_gdk_visuals(env: dict[str, str]) -> None:
    """The first GTK client on an X display probes OpenGL for its visuals (loading Mesa and, for
    llvmpipe, libLLVM: ~50 MB more RSS, and slower) and caches the answer in the root window's
    GDK_VISUALS property; every later client reads it. A desktop session has it set long before
    acp-tray starts, so it is set here first, or whichever process runs first would pay for it."""
    subprocess.run(
        [sys.executable, "-c", "import gi; gi.require_version('Gtk', '3.0'); from gi.repository import Gtk"],
        env=env, check=True, timeout=30,
    )  # fmt: skip
    shown = subprocess.run(["xprop", "-root", "GDK_VISUALS"], env=env, capture_output=True, text=True, timeout=10)
    if "GDK_VISUALS(INTEGER)" not in shown.stdout:
        raise RuntimeError(f"GTK did not cache its visuals on the root window: {shown.stdout or shown.stderr}")


def cpu_seconds(pid: int, thread: int | None = None) -> float:
    """CPU seconds of a process (all its threads), or of one of its threads."""
    stat = Path(f"/proc/{pid}/stat" if thread is None else f"/proc/{pid}/task/{thread}/stat")
    fields = stat.read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICKS


def children(pid: int) -> list[int]:
    found = []
    for task in Path(f"/proc/{pid}/task").iterdir():
        with open(task / "children") as handle:
            found += [int(child) for child in handle.read().split()]
    return found


def memory(pid: int) -> tuple[float, float, float, float]:
    """RSS, anonymous and file-backed resident MB, and PSS."""
    values = {}
    for line in Path(f"/proc/{pid}/smaps_rollup").read_text().splitlines()[1:]:
        name, value, *_ = line.split()
        values[name.rstrip(":")] = int(value) / 1024
    return values["Rss"], values["Anonymous"], values["Rss"] - values["Anonymous"], values["Pss"]


def popups_that_stay() -> int:
    """How many of one demo agent's opening notices stay on screen (no timeout in the default
    preferences); the others expire on dunst."""
    from acp_tray.demo.agent import DEMO_NOTICES
    from acp_tray.prefs.model import Preferences
    from acp_tray.presentation.severity import severity_class
    from acp_tray.protocol.notice import severity_kind

    severities = Preferences().severity
    return sum(
        1 for notice in DEMO_NOTICES if severities.of(severity_class(severity_kind(notice["severity"]))).timeout == 0
    )


def popups_on_screen(env: dict[str, str]) -> int:
    counts = [
        subprocess.run(["dunstctl", "count", what], env=env, capture_output=True, text=True, timeout=10, check=True)
        for what in ("displayed", "waiting")
    ]
    return sum(int(count.stdout) for count in counts)


def status_json(env: dict[str, str]) -> dict[str, Any] | None:
    shown = subprocess.run(
        [sys.executable, "-m", "acp_tray", "status", "--json"], env=env, capture_output=True, text=True, timeout=10
    )
    return json.loads(shown.stdout) if shown.returncode == 0 else None


def settle(process: subprocess.Popen[bytes], env: dict[str, str], agents: int, history: Path) -> None:
    """Until all agents are connected, their opening notices are in, and the daemon is quiet."""
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"acp-tray exited with {process.returncode}")
        status = status_json(env)
        connected = status is not None and [a["state"] for a in status["agents"]] == ["connected"] * agents
        notices = len(history.read_text(encoding="utf-8").splitlines()) if history.exists() else 0
        if connected and notices >= NOTICES_PER_AGENT * agents:
            break
        time.sleep(0.2)
    else:
        raise RuntimeError("the agents never connected and settled")
    staying = popups_that_stay() * agents
    while popups_on_screen(env) > staying:  # the opening popups that expire: gone before the window
        if time.monotonic() > deadline + 30:
            raise RuntimeError(f"dunst still shows more than the {staying} popups that stay")
        time.sleep(0.5)
    for _ in range(30):  # then a whole second with at most one clock tick of CPU
        before = cpu_seconds(process.pid)
        time.sleep(1.0)
        if cpu_seconds(process.pid) - before <= 1 / TICKS:
            return
    raise RuntimeError("acp-tray never went idle")


def start(command: list[str], env: dict[str, str], shot: Path, figures: Figures) -> subprocess.Popen[bytes]:
    """The process, started and its icon visible (`figures` takes the time and its main thread's CPU)."""
    began = time.monotonic()
    process = subprocess.Popen(command, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        while not icon_visible(env, shot):
            if time.monotonic() - began > 30:
                raise RuntimeError("icon never appeared")
    except BaseException:
        stop_processes([process])
        raise
    figures.visible = time.monotonic() - began
    figures.main_cpu = cpu_seconds(process.pid, process.pid)
    return process


def measure(command: list[str], env: dict[str, str], idle: float, shot: Path, agents: int = 0) -> Figures:
    figures = Figures()
    start_time = time.monotonic()
    process = start(command, env, shot, figures)
    try:
        if agents:
            settle(process, env, agents, Path(env["XDG_STATE_HOME"]) / "acp-tray" / "history.jsonl")
        else:
            time.sleep(3)
        figures.settle = time.monotonic() - start_time - figures.visible
        kids = children(process.pid)
        cpu_before, kids_before, switches_before = (
            cpu_seconds(process.pid),
            sum(cpu_seconds(k) for k in kids),
            switches(process.pid),
        )
        time.sleep(idle)
        figures.cpu = cpu_seconds(process.pid) - cpu_before
        figures.agents_cpu = sum(cpu_seconds(k) for k in kids) - kids_before
        figures.wakeups = wakeups(switches_before, switches(process.pid))
        figures.rss, figures.anon, figures.file, figures.pss = memory(process.pid)
        figures.agents_rss = [memory(k)[0] for k in kids]
    finally:
        stop_processes([process])
    return figures


def fresh_dirs(root: Path, env: dict[str, str]) -> dict[str, str]:
    """`env` with XDG directories of its own under `root` (0700): a first start."""
    dirs = {
        name: root / name.lower() for name in ("XDG_CONFIG_HOME", "XDG_STATE_HOME", "XDG_RUNTIME_DIR", "XDG_DATA_HOME")
    }
    for path in dirs.values():
        path.mkdir(mode=0o700, parents=True)
    return {**env, **{name: str(path) for name, path in dirs.items()}}


def starts(
    commands: dict[str, list[str]], env: dict[str, str], tmp: Path, shot: Path, rounds: int
) -> dict[str, list[Figures]]:
    """Each command started `rounds` times, interleaved, each a first start: until its icon showed."""
    seen: dict[str, list[Figures]] = {name: [] for name in commands}
    for round_ in range(rounds):
        for name, command in commands.items():
            figures = Figures()
            stop_processes([start(command, fresh_dirs(tmp / f"start-{name}-{round_}", env), shot, figures)])
            seen[name].append(figures)
            time.sleep(0.5)  # the icon left the tray
    return seen


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--idle", type=float, default=60.0, help="seconds of idle measured (default 60)")
    parser.add_argument("--agents", type=int, default=3, help="demo agents (default 3)")
    parser.add_argument("--starts", type=int, default=3, help="starts of each, to the icon, interleaved (default 3)")
    parser.add_argument("--check", action="store_true", help="exit 1 when a target is missed, naming it")
    args = parser.parse_args()
    compileall.compile_dir(ROOT / "src", quiet=1)  # as installed: bytecode, not each module compiled at each start
    with tempfile.TemporaryDirectory() as tmp, DesktopSession() as desktop:
        env = {
            **os.environ,
            **desktop.env,
            "NO_AT_BRIDGE": "1",
            "ACP_TRAY_DEMO_INTERVAL": "0.05",  # the demo agents' opening notices come at once
            "ACP_TRAY_NO_WELCOME": "1",  # no window on the welcome page: the tray alone is measured
        }
        host = subprocess.Popen(
            ["trayer", "--edge", "top", "--align", "right", "--widthtype", "request", "--height", "32"],
            env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        )  # fmt: skip
        warm_gdk_visuals(env)
        time.sleep(0.5)
        config = Path(tmp) / "config.toml"
        demo = json.dumps([sys.executable, "-m", "acp_tray", "demo-agent"])
        config.write_text(
            "".join(f"[agents.demo{i}]\ncommand = {demo}\n" for i in range(args.agents)), encoding="utf-8"
        )
        shot = Path(tmp) / "shot.png"
        commands = {
            "bare": [sys.executable, "-c", BARE.format(src=str(ROOT / "src"))],
            "ours": [sys.executable, "-m", "acp_tray", "run", "--config", str(config)],
        }
        try:
            started = starts(commands, env, Path(tmp), shot, args.starts)
            bare = measure(commands["bare"], fresh_dirs(Path(tmp) / "bare", env), args.idle, shot)
            ours = measure(commands["ours"], fresh_dirs(Path(tmp) / "ours", env), args.idle, shot, args.agents)
        finally:
            host.terminate()
            host.wait(5)
    started = {name: [*figures, {"bare": bare, "ours": ours}[name]] for name, figures in started.items()}
    missed = report(args, started, bare, ours)
    if missed:
        print("missed: " + "; ".join(missed))
    return 1 if args.check and missed else 0


def report(args: argparse.Namespace, started: dict[str, list[Figures]], bare: Figures, ours: Figures) -> list[str]:
    """Print the figures with their ratios; the targets missed."""
    visible = {name: statistics.median(f.visible for f in figures) for name, figures in started.items()}
    main_cpu = {name: statistics.median(f.main_cpu for f in figures) for name, figures in started.items()}
    runs = " ".join(f"{f.visible:.2f}" for f in started["ours"]), " ".join(f"{f.visible:.2f}" for f in started["bare"])
    print(
        f"start to icon visible (median of {len(started['ours'])}): acp-tray {visible['ours']:.2f} s · bare pystray "
        f"{visible['bare']:.2f} s · {visible['ours'] / visible['bare']:.2f}x (target <= {TARGET_VISIBLE_RATIO}x)"
        f" · each: acp-tray {runs[0]} · bare {runs[1]}"
    )
    print(
        f"  its main thread's CPU by then: acp-tray {main_cpu['ours']:.2f} s · bare pystray {main_cpu['bare']:.2f} s"
        f" · {main_cpu['ours'] / main_cpu['bare']:.2f}x"
    )
    notices = NOTICES_PER_AGENT * args.agents
    print(f"settled: {args.agents} agents connected, {notices} opening notices in, the popups that expire gone, "
          f"then a quiet second, {ours.settle:.1f} s after the icon")  # fmt: skip
    per_60 = ours.cpu * 60 / args.idle
    wakeups_per_60 = ours.wakeups * 60 / args.idle
    print(
        f"idle over {args.idle:.0f} s: acp-tray {ours.cpu:.2f} s CPU, {ours.wakeups} wake-ups "
        f"({wakeups_per_60:.0f} per 60 s; target <= {TARGET_WAKEUPS_PER_60}) · bare pystray {bare.cpu:.2f} s, "
        f"{bare.wakeups} wake-ups · its agents {ours.agents_cpu:.2f} s"
    )
    agents_rss = " + ".join(f"{r:.0f}" for r in ours.agents_rss) or "none"
    print(
        f"RSS: acp-tray {ours.rss:.1f} MB (anon {ours.anon:.0f}, file {ours.file:.0f}; PSS {ours.pss:.0f}) · bare "
        f"pystray {bare.rss:.1f} MB (anon {bare.anon:.0f}, file {bare.file:.0f}; PSS {bare.pss:.0f}) · "
        f"{ours.rss / bare.rss:.2f}x (target <= {TARGET_RSS_RATIO}x) · its agents {agents_rss} MB"
    )
    results = [
        (
            f"icon visible at most {TARGET_VISIBLE_RATIO}x bare",
            visible["ours"] <= TARGET_VISIBLE_RATIO * visible["bare"],
        ),
        ("idle CPU < 0.3 s per 60 s", per_60 < TARGET_CPU_PER_60),
        (f"at most {TARGET_WAKEUPS_PER_60} wake-ups per 60 s idle", wakeups_per_60 <= TARGET_WAKEUPS_PER_60),
        (f"RSS at most {TARGET_RSS_RATIO}x bare", ours.rss <= TARGET_RSS_RATIO * bare.rss),
    ]
    print("targets: " + " · ".join(f"{name}: {'met' if ok else 'MISSED'}" for name, ok in results))
    return [name for name, ok in results if not ok]


if __name__ == "__main__":
    raise SystemExit(main())
