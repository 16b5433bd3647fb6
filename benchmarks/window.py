"""The window's start: from `acp-tray ui --no-browser` to the page's first `load` event in chromium.

Every figure has a peer measured in the same run, interleaved, because this machine is noisy
(2 cores): the figures that matter are the ratios.

    python benchmarks/window.py [--quick] [--runs 10] [--check]

Starts its own headless daemon (temp XDG dirs, the demo agent; benchmarks/control.py's set-up) and
Debian's chromium through Playwright (started once, not counted; a fresh context, so no cookie, for
every load), then, in each round:
1. cold: no window server running (the last one ended and gone): `acp-tray ui --no-browser` as a
   process (it starts the server and prints the address), then the browser opens that address (the
   key for a cookie, the redirect, the overview) until its `load` event. Peer: a bare Starlette app
   served by uvicorn the same way (its process started, its port read, the browser at it until
   `load`);
2. warm: the window's server running: the same, `acp-tray ui` then the load, in the browser context
   the cold load used (a person's browser opening the window again: its cache kept). Peers:
   `python -c pass` (the least any command costs) and the bare app's page loaded while it runs;
then the window process's resident memory after each of its pages was loaded LOADS times, the bare
app's, and the daemon's before the window was used, with it, and after it ended (the window keeps
a `watch` stream open to the daemon).
Targets (the project's tracker): warm < 200 ms, cold at most 1.25x the bare app's, the window
process's RSS at most 1.4x the bare app's (and < 1 s cold). With --check the exit status is 1 when a
target is missed, and the missed targets are named.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import signal
import statistics
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks.control import DaemonProcess, isolated_environment, pct  # noqa: E402

from tests.support.browser import ARGS, chromium_executable  # noqa: E402

if TYPE_CHECKING:
    from playwright.sync_api import Browser, BrowserContext

AGENT = "demo"
TARGET_WARM_MS = 200.0
TARGET_COLD_RATIO = 1.25  # the window's cold start to load, at most this times the bare app's
TARGET_RSS_RATIO = 1.4  # the window process's RSS, at most this times the bare app's
LOADS = 5  # of each page, before the window's memory is read
BARE_APP = """\
import socket, sys
import uvicorn
from starlette.applications import Starlette
from starlette.responses import HTMLResponse
from starlette.routing import Route

async def home(request):
    return HTMLResponse("<!doctype html><title>bare</title><p>a bare Starlette page</p>")

sock = socket.socket()
sock.bind(("127.0.0.1", 0))
sock.listen(64)
print(sock.getsockname()[1], flush=True)
uvicorn.Server(uvicorn.Config(Starlette(routes=[Route("/", home)]), log_level="warning", lifespan="off")).run(
    sockets=[sock]
)
"""


def rss_mb(pid: int) -> tuple[float, float]:
    """VmRSS and VmHWM (peak) of a process, in MB (Linux /proc)."""
    fields = dict(line.split(":", 1) for line in Path(f"/proc/{pid}/status").read_text(encoding="utf-8").splitlines())
    return (int(fields["VmRSS"].split()[0]) / 1024, int(fields["VmHWM"].split()[0]) / 1024)


def window_pid() -> int | None:
    from acp_tray.control.endpoint import runtime_dir

    try:
        return int(json.loads((runtime_dir() / "window.json").read_text(encoding="utf-8"))["pid"])
    except (OSError, ValueError, KeyError):
        return None


def end_window() -> None:
    """The window's server ended, and gone: the next `acp-tray ui` starts one (cold)."""
    pid = window_pid()
    if pid is None:
        return
    with contextlib.suppress(ProcessLookupError):
        os.kill(pid, signal.SIGTERM)
    deadline = time.monotonic() + 15
    while time.monotonic() < deadline:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return
        time.sleep(0.02)
    raise RuntimeError(f"the window's server {pid} did not end within 15 s")


def load(browser: Browser, url: str, context: BrowserContext | None = None) -> float:
    """Seconds from now to the first `load` event of `url`: in a fresh context (no cookie, nothing
    cached), or in `context` (a person's browser that opened the window before)."""
    fresh = context is None
    used = browser.new_context() if context is None else context
    try:
        page = used.new_page()
        start = time.perf_counter()
        page.goto(url, wait_until="load")
        seconds = time.perf_counter() - start
        page.close()
        return seconds
    finally:
        if fresh:
            used.close()


def window_start(browser: Browser, env: dict[str, str], context: BrowserContext) -> tuple[float, float]:
    """`acp-tray ui --no-browser`, then its address loaded in `context`: (the whole, the ui process alone)."""
    start = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-m", "acp_tray", "ui", "--no-browser"], capture_output=True, text=True, env=env, cwd=ROOT
    )
    process = time.perf_counter() - start
    if done.returncode != 0:
        raise RuntimeError(f"acp-tray ui exited {done.returncode}: {done.stderr}")
    page = load(browser, done.stdout.strip().splitlines()[-1], context)
    return process + page, process


@contextlib.contextmanager
def bare_app(env: dict[str, str]) -> Iterator[tuple[subprocess.Popen[str], int, float]]:
    """The bare app's process, its port, and when it was started (perf_counter)."""
    start = time.perf_counter()
    process = subprocess.Popen(
        [sys.executable, "-c", BARE_APP], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, env=env
    )
    try:
        assert process.stdout is not None
        port = int(process.stdout.readline())
        yield process, port, start
    finally:
        process.terminate()
        process.wait(10)


def bare_cold(browser: Browser, env: dict[str, str]) -> float:
    with bare_app(env) as (_, port, start):
        load(browser, f"http://127.0.0.1:{port}/")
        return time.perf_counter() - start


def floor(env: dict[str, str]) -> float:
    start = time.perf_counter()
    subprocess.run([sys.executable, "-c", "pass"], check=True, env=env)
    return time.perf_counter() - start


def measure(browser: Browser, env: dict[str, str], runs: int) -> dict[str, list[float]]:
    times: dict[str, list[float]] = {
        name: [] for name in ("cold", "cold ui", "bare cold", "warm", "warm ui", "floor", "bare warm")
    }
    with bare_app(env) as (_, port, _start):
        for round_ in range(runs + 1):  # the first round warms the caches and is not counted
            end_window()
            figures = {"bare cold": bare_cold(browser, env)}
            person = browser.new_context()  # one browser, as a person's: the second open finds its cache
            figures["cold"], figures["cold ui"] = window_start(browser, env, person)
            figures["warm"], figures["warm ui"] = window_start(browser, env, person)
            person.close()
            figures["floor"] = floor(env)
            figures["bare warm"] = load(browser, f"http://127.0.0.1:{port}/")
            if round_:
                for name, seconds in figures.items():
                    times[name].append(seconds * 1000)
    return times


PAGES_FOR_MEMORY = ("overview", "agents", "history", "diagnostics")


def memory(browser: Browser, env: dict[str, str]) -> tuple[float, float, float]:
    """The window process's RSS and peak after each of its pages was loaded LOADS times, and the
    bare app's after one load."""
    pid = window_pid()
    assert pid is not None
    context = browser.new_context()
    page = context.new_page()
    ui = [sys.executable, "-m", "acp_tray", "ui", "--no-browser"]
    page.goto(subprocess.run(ui, capture_output=True, text=True, env=env, check=True).stdout.strip())
    for _ in range(LOADS):
        for name in PAGES_FOR_MEMORY:
            page.goto(page.url.rsplit("/", 1)[0] + f"/{name}", wait_until="load")
    context.close()
    window_rss, window_peak = rss_mb(pid)
    with bare_app(env) as (process, port, _):
        import http.client

        connection = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
        connection.request("GET", "/")
        connection.getresponse().read()
        connection.close()
        return window_rss, window_peak, rss_mb(process.pid)[0]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="two rounds: proves the benchmark runs")
    parser.add_argument("--runs", type=int, default=None, help="rounds (default 10, quick 2)")
    parser.add_argument("--check", action="store_true", help="exit 1 when a target is missed, naming it")
    args = parser.parse_args()
    runs = args.runs or (2 if args.quick else 10)
    executable = chromium_executable()
    if executable is None:
        raise SystemExit("no chromium (.ci/system-deps installs Debian's)")
    from playwright.sync_api import sync_playwright

    signal.signal(signal.SIGTERM, lambda signum, frame: sys.exit(128 + signum))  # clean up on the way out
    with isolated_environment() as env, sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=executable, headless=True, args=ARGS)
        daemon = DaemonProcess(env)
        try:
            daemon.wait_for("control: ")
            daemon.wait_for(f"  {AGENT}  connected")
            time.sleep(1.0)  # settled
            daemon_before = rss_mb(daemon.proc.pid)[0]
            times = measure(browser, env, runs)
            window_rss, window_peak, bare_rss = memory(browser, env)
            daemon_after = rss_mb(daemon.proc.pid)[0]
            end_window()
            daemon_ended = rss_mb(daemon.proc.pid)[0]
        finally:
            end_window()
            daemon.stop(env)
            browser.close()
    missed = report(times, runs, (window_rss, window_peak, bare_rss), (daemon_before, daemon_after, daemon_ended))
    if missed:
        print("missed: " + "; ".join(missed))
    return 1 if args.check and missed else 0


def report(
    times: dict[str, list[float]], runs: int, rss: tuple[float, float, float], daemon: tuple[float, float, float]
) -> list[str]:
    """Print the figures with their ratios; the targets missed."""
    med = {name: statistics.median(values) for name, values in times.items()}
    quick = " --quick" if runs == 2 else ""
    print(
        f"window: `acp-tray ui --no-browser` to the page's first load event in chromium · {runs} rounds,"
        f" interleaved, median / p90 · reproduce: python benchmarks/window.py{quick}"
    )
    print("cold (no window server running):")
    print(
        f"  acp-tray ui -> load           {med['cold']:7.1f} / {pct(times['cold'], 0.9):7.1f} ms"
        f"   (the ui process {med['cold ui']:.1f} ms, starting the server; target < 1000 ms)"
    )
    print(f"  bare Starlette app -> load    {med['bare cold']:7.1f} / {pct(times['bare cold'], 0.9):7.1f} ms")
    print(f"  window / bare app: {med['cold'] / med['bare cold']:.2f}x (target <= {TARGET_COLD_RATIO}x)")
    print("warm (the window's server running):")
    print(
        f"  acp-tray ui -> load           {med['warm']:7.1f} / {pct(times['warm'], 0.9):7.1f} ms"
        f"   (the ui process {med['warm ui']:.1f} ms; target < {TARGET_WARM_MS:.0f} ms)"
    )
    print(f"  python -c pass                {med['floor']:7.1f} / {pct(times['floor'], 0.9):7.1f} ms")
    print(f"  bare app page load            {med['bare warm']:7.1f} / {pct(times['bare warm'], 0.9):7.1f} ms")
    peer = med["floor"] + med["bare warm"]
    print(f"  window / (python -c pass + bare page load): {med['warm'] / peer:.2f}x")
    window_rss, window_peak, bare_rss = rss
    print(
        f"memory: the window process {window_rss:.1f} MB RSS (peak {window_peak:.1f} MB) after"
        f" {LOADS * len(PAGES_FOR_MEMORY) + 3} page loads · bare Starlette app {bare_rss:.1f} MB"
        f" · window / bare: {window_rss / bare_rss:.2f}x (target <= {TARGET_RSS_RATIO}x)"
    )
    before, after, ended = daemon
    print(
        f"daemon RSS: {before:.1f} MB before the window · {after:.1f} MB with it ({after - before:+.1f} MB)"
        f" · {ended:.1f} MB after it ended ({ended - before:+.1f} MB)"
    )
    results = [
        (f"warm < {TARGET_WARM_MS:.0f} ms", med["warm"] < TARGET_WARM_MS),
        (f"cold at most {TARGET_COLD_RATIO}x the bare app", med["cold"] <= TARGET_COLD_RATIO * med["bare cold"]),
        ("cold < 1000 ms", med["cold"] < 1000),
        (f"RSS at most {TARGET_RSS_RATIO}x the bare app", window_rss <= TARGET_RSS_RATIO * bare_rss),
    ]
    print("targets: " + " · ".join(f"{name}: {'met' if ok else 'MISSED'}" for name, ok in results))
    return [name for name, ok in results if not ok]


if __name__ == "__main__":
    raise SystemExit(main())
