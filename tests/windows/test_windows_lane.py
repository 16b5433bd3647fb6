"""acp-tray's Windows paths on the official Windows CPython under Wine (run by `.ci/windows-lane`):
autostart in the registry, `run --headless` with the demo agent and the CLI from other processes
over the named pipe, UTF-8 through it, the lock, Ctrl+C, polling while the daemon starts, the
win32 tray and its menu, and a notification balloon (screenshots in the lane's artifacts)."""

from __future__ import annotations

import contextlib
import os
import re
import select
import signal
import subprocess
import threading
import time
from pathlib import Path

import pytest

from tests.support.browser import PageFor
from tests.support.waiting import until
from tests.windows.wine import (
    ARTIFACTS,
    PYTHON,
    Finished,
    acp,
    daemon,
    environment,
    lane_only,
    lock_files,
    run,
    run_finished,
    user_dir,
)

pytestmark = lane_only

CONNECTED = "agents: 1 (1 connected)"
HOSTILE_PROMPT = "→ 🎉 — ünïcödé"


def test_windows_cpython_with_the_windows_wheels() -> None:
    code, out = run(
        "-c",
        "import sys, asyncio, winreg, pystray, plyer.platforms.win.notification, pydantic_core, watchfiles;"
        "print(sys.platform, type(asyncio.new_event_loop()).__name__, pystray.Icon.__module__)",
    )
    assert code == 0 and "win32 ProactorEventLoop pystray._win32" in out, out


def test_autostart_enable_status_disable_in_the_registry() -> None:
    assert "not enabled" in acp("autostart", "status")
    assert "start on login enabled" in acp("autostart", "enable")
    status = acp("autostart", "status")
    assert re.search(r"Run registry value 'acp-tray': .*pythonw\.exe -m acp_tray run .*starts this install", status)
    query = subprocess.run(
        ["wine", "reg", "query", r"HKCU\Software\Microsoft\Windows\CurrentVersion\Run"],
        stdin=subprocess.DEVNULL,
        capture_output=True,
        check=False,
    ).stdout.decode("utf-8", "replace")
    assert re.search(r"acp-tray\s+REG_SZ\s+.*pythonw\.exe -m acp_tray run", query), query
    assert "removed the Run registry value" in acp("autostart", "disable")
    assert "not enabled" in acp("autostart", "status")


class Polls:
    """Every `acp-tray status` answer while polling, and the polls whose process printed its whole
    answer and then did not end (a Windows process under Wine that never finishes exiting)."""

    def __init__(self) -> None:
        self.answers: list[str] = []
        self.exit_hangs: list[Finished] = []


def _poll_until_connected(timeout: float, pollers: int = 1, polls: Polls | None = None) -> Polls:
    """`acp-tray status` from `pollers` processes at once, again and again from the moment the daemon
    is started, until one sees the demo agent connected; `polls`: where the answers go as they come."""
    polls = Polls() if polls is None else polls
    hangs: list[Finished] = []
    done = threading.Event()

    def poll() -> None:
        deadline = time.monotonic() + timeout
        while not done.is_set() and time.monotonic() < deadline:
            result = run_finished("-m", "acp_tray", "status", timeout=30)
            if result.code is None:
                if not re.search(r"^acp-tray.*\n", result.output, re.MULTILINE):
                    hangs.append(result)  # no answer at all: the daemon or the client is stuck
                    done.set()
                    return
                polls.exit_hangs.append(result)  # answered, then the process did not end: Wine's
            polls.answers.append(result.output.splitlines()[0] if result.output else "")
            if CONNECTED in result.output:
                done.set()

    threads = [threading.Thread(target=poll) for _ in range(pollers)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert not hangs, f"a status poll got no answer within 30 s: {hangs[0]}"
    assert done.is_set(), f"the daemon never answered '{CONNECTED}': {polls.answers[-5:]}"
    if polls.exit_hangs:
        print(f"{len(polls.exit_hangs)} poll(s) answered but their python.exe did not exit: {polls.exit_hangs[0]}")
    return polls


def test_headless_daemon_and_the_cli_from_other_processes() -> None:
    with daemon("--headless", name="headless") as d:
        _poll_until_connected(120)
        status = acp("status")
        assert re.search(r"acp-tray \S+ running \(pid \d+, up 0h 0m\) · do not disturb: off", status), status

        reply = acp("prompt", "demo", f"hello {HOSTILE_PROMPT}")  # decoded as strict UTF-8
        assert "Hello from the acp-tray demo agent" in reply and HOSTILE_PROMPT in reply, reply

        waiting: dict[str, str] = {}
        prompt = threading.Thread(target=lambda: waiting.update(out=acp("prompt", "demo", "delete the build folder")))
        prompt.start()
        deadline = time.monotonic() + 60
        while "Delete the build/ folder" not in (approvals := acp("approvals")) and time.monotonic() < deadline:
            time.sleep(1)
        assert re.search(r"\[1\] demo: Delete the build/ folder", approvals), approvals
        assert "answered allow" in acp("approve", "1")
        prompt.join(60)
        assert "You allowed it" in waiting.get("out", ""), waiting

        assert "do not disturb: on" in acp("dnd", "on")
        assert "do not disturb: on" in acp("status")
        assert "do not disturb: off" in acp("dnd", "off")

        code, second = run("-m", "acp_tray", "run", "--headless", timeout=60)
        assert code == 0 and re.search(r"acp-tray is already running \(pid \d+\)", second), second
        assert lock_files(), "the running daemon holds daemon.lock"

        assert "stopped" in acp("quit")
        assert d.wait_exit(30) == 0, d.output[-2000:]
    assert not lock_files(), "daemon.lock left behind after a clean quit"
    assert "Traceback" not in d.output, d.output


def test_a_restart_after_a_clean_quit_does_not_warn_and_ctrl_c_stops_it() -> None:
    with daemon("--headless", name="ctrl-c") as d:
        _poll_until_connected(120)
        assert "took over the lock" not in d.output, d.output
        os.kill(d.python_pid(), signal.SIGINT)  # Wine hands it to python.exe as Ctrl+C
        assert d.wait_exit(30) == 0, d.output[-2000:]
        assert "stopped by acp-tray" in d.output and "Traceback" not in d.output, d.output
    assert not lock_files()


@pytest.mark.timeout(300)  # Wine's start, then 30 s for the window's server to end after its last page
def test_the_window_served_by_windows_cpython_in_this_machines_browser(page_for: PageFor) -> None:
    """`acp-tray ui` under Wine starts the window's server (a detached python.exe); chromium on this
    machine reaches it on loopback: the overview shows the demo agent, and an approval answered with
    the page's button reaches the agent."""
    with daemon("--headless", name="window") as d:
        _poll_until_connected(120)
        url = acp("ui", "--no-browser").strip().splitlines()[-1]
        assert re.fullmatch(r"http://127\.0\.0\.1:\d+/open\?key=[\w.-]+&page=overview", url), url
        watched = page_for()
        page = watched.page
        page.goto(url, timeout=60_000)
        page.wait_for_selector('[data-agent="demo"][data-state="connected"]', timeout=60_000)
        waiting: dict[str, str] = {}
        prompt = threading.Thread(target=lambda: waiting.update(out=acp("prompt", "demo", "delete the build folder")))
        prompt.start()
        allow = page.get_by_role("button", name="✔ Allow once")
        allow.wait_for(timeout=60_000)
        page.screenshot(path=ARTIFACTS / "window-overview.png", full_page=True)
        allow.click()
        prompt.join(60)
        assert "You allowed it" in waiting.get("out", ""), waiting
        page.get_by_text("No agent is waiting for you.").wait_for(timeout=30_000)
        assert not watched.problems, watched.problems
        assert "stopped" in acp("quit")
        assert d.wait_exit(30) == 0, d.output[-2000:]
        # the open page says acp-tray is down (its server stays while a page of it is open) ...
        page.get_by_text("acp-tray is not running").first.wait_for(timeout=30_000)
        page.close()
    # ... and with no page open, the server ends (30 s after the last page went, while the daemon is down)
    deadline = time.monotonic() + 60
    while list(user_dir().rglob("window.json")) and time.monotonic() < deadline:
        time.sleep(0.5)
    assert not list(user_dir().rglob("window.json")), "the window's server outlived the daemon and its pages"


@pytest.mark.timeout(420)  # the polls before, Wine's start, the agent's, a turn and the quit
@pytest.mark.parametrize("attempt", [1, 2])
def test_polling_while_the_daemon_starts_never_wedges_it(attempt: int) -> None:
    """Two clients poll the pipe from before the daemon starts (before its pipe exists, while it
    imports, while the agent starts); the daemon must come up and keep serving: notices, prompts, quit.
    The daemon is started once a poll has found it not running (a busy machine starts Wine's python
    slowly: started together, the daemon could be up before the first poll)."""
    polls, failed = Polls(), list[AssertionError]()

    def polling() -> None:
        try:
            _poll_until_connected(240, pollers=2, polls=polls)
        except AssertionError as exc:
            failed.append(exc)

    pollers = threading.Thread(target=polling)
    pollers.start()
    until(
        lambda: any("not running" in a for a in polls.answers) or not pollers.is_alive(), 120, "a poll's first answer"
    )
    assert any("not running" in a for a in polls.answers), f"no poll answered before the daemon: {polls.answers}"
    with daemon("--headless", name=f"startup-polls-{attempt}", every_turn=True) as d:
        pollers.join(250)
        assert not pollers.is_alive() and not failed, failed
        assert "Hello from the acp-tray demo agent" in acp("prompt", "demo", "still there?")
        d.wait_for(lambda: "Finished" in d.output, 30, "the turn's notice")  # notices still flow
        assert "stopped" in acp("quit")
        assert d.wait_exit(30) == 0, d.output[-2000:]


def _screenshot(name: str) -> Path:
    path = ARTIFACTS / f"{name}.png"
    subprocess.run(["import", "-window", "root", str(path)], check=True)
    return path


def _measure(path: Path, crop: str, fx: str) -> float:
    out = subprocess.run(
        ["convert", str(path), "-crop", crop, "+repage", "-colorspace", "gray", "-format", f"%[fx:{fx}]", "info:"],
        capture_output=True,
        check=True,
        text=True,
    ).stdout
    return float(out)


def test_tray_icon_menu_and_a_notification_balloon() -> None:
    with daemon(name="tray", desktop=True, every_turn=True) as d:
        _poll_until_connected(120)
        assert "tray: pystray, win32 backend" in d.output
        assert re.search(r"notifications: plyer \(plyer on win32\)", d.output), d.output
        # the turn's "Finished" notice comes up as a balloon: shown, not failed in plyer's thread
        assert "Hello from the acp-tray demo agent" in acp("prompt", "demo", "hello tray")
        deadline = time.monotonic() + 15
        while True:  # up within moments; a busy machine may take a few seconds more
            balloon = _screenshot("balloon")
            white = _measure(balloon, "180x40+835+615", "mean")
            if white > 0.8 or time.monotonic() > deadline:
                break
            time.sleep(1)
        assert white > 0.8, f"no balloon above the notification area ({balloon}: mean {white:.2f})"
        # the balloons time out (10 s each; the demo's opening notices may still be coming up as
        # balloons after the turn's): then only acp-tray's own icon is left
        deadline = time.monotonic() + 45
        while True:
            tray = _screenshot("tray")
            left = _measure(tray, "14x14+987+683", "standard_deviation")  # the balloon's own icon, before
            if left < 0.02 or time.monotonic() > deadline:
                break
            time.sleep(2)
        assert _measure(tray, "16x16+1005+682", "standard_deviation") > 0.05, f"no tray icon ({tray})"
        assert left < 0.02, f"the balloon's icon stayed in the notification area after its timeout ({tray})"
        subprocess.run(["xdotool", "mousemove", "1013", "690", "click", "3"], check=True)
        time.sleep(1.5)
        menu = _screenshot("tray-menu")
        assert _measure(menu, "140x100+860+540", "standard_deviation") > 0.05, f"no menu after a right click ({menu})"
        # Do not disturb > For 30 minutes (the submenu opens to the left at the screen's edge; the menu
        # grows upwards from the icon: rows below Do not disturb (… Diagnostics…, Quit) push it up)
        subprocess.run(["xdotool", "mousemove", "911", "574"], check=True)
        time.sleep(1.5)
        _screenshot("tray-dnd-menu")
        subprocess.run(["xdotool", "mousemove", "800", "574"], check=True)
        time.sleep(0.5)
        subprocess.run(["xdotool", "mousemove", "758", "608", "click", "1"], check=True)  # 2 rows under Off
        deadline = time.monotonic() + 20
        while "on until" not in (dnd := acp("dnd", "status")) and time.monotonic() < deadline:
            time.sleep(1)
        assert "do not disturb: on until" in dnd, dnd
        assert "do not disturb: off" in acp("dnd", "off")
        assert "plyer notifications failed" not in d.output and "Could not load icon" not in d.output, d.output
        assert "stopped" in acp("quit")
        assert d.wait_exit(40) is not None, "quit did not stop the tray daemon"
    assert "Traceback" not in d.output, d.output


def test_why_polls_looked_like_a_wedge_the_process_that_starts_wine_hands_it_its_output(tmp_path: Path) -> None:
    """The "wedge" seen when polling a starting daemon under Wine: whichever Windows process starts
    Wine's server and services (the first in a prefix, or the first after the server went idle)
    hands them its output. That process ends, but while any other Windows process (the daemon)
    keeps Wine's server up, its output pipe never reaches its end, so a harness reading to the end
    (`| cat`, `communicate()`) waits for ever, whatever the daemon does. It is Wine's (the lane
    starts one server with no output, and waits for processes, not for the end of their output)."""
    env = {**environment(), "WINEPREFIX": str(tmp_path / "prefix")}
    poll = subprocess.Popen(  # the first process in this prefix: it starts Wine's server
        ["wine", PYTHON, "-c", "import time; print('answered', flush=True); time.sleep(5)"],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        env=env,
    )
    assert poll.stdout is not None
    daemon = None
    try:
        output = b""
        while b"answered" not in output and select.select([poll.stdout], [], [], 180)[0]:
            chunk = os.read(poll.stdout.fileno(), 4096)  # what is there, as select said
            assert chunk, f"the pipe ended: {output!r}"
            output += chunk
        assert b"answered\r\n" in output, output
        daemon = subprocess.Popen(  # another process (the daemon) keeps Wine's server up
            ["wine", PYTHON, "-c", "import time; time.sleep(60)"],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            env=env,
        )
        assert poll.wait(60) == 0  # the poll itself ended
        inode = os.fstat(poll.stdout.fileno()).st_ino
        holders = []
        for fd in Path("/proc").glob("[0-9]*/fd/*"):
            with contextlib.suppress(OSError):
                if os.readlink(fd) == f"pipe:[{inode}]" and fd.parent.parent.name != str(os.getpid()):
                    holders.append((fd.parent.parent / "cmdline").read_bytes().split(b"\0")[0].decode())
        assert any("wineserver" in h for h in holders), holders  # Wine's server holds the poll's output
        deadline = time.monotonic() + 5
        while time.monotonic() < deadline:  # ... and its end does not come (Wine may add lines)
            if select.select([poll.stdout], [], [], 0.5)[0]:
                assert os.read(poll.stdout.fileno(), 4096), "the output pipe ended"
    finally:
        subprocess.run(["wineserver", "-k"], env=env, check=False)
        for process in (poll, daemon):
            if process is not None:
                process.wait(30)
        poll.stdout.close()
