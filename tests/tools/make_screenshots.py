"""Take the README's pictures as a person sees them: dunst with its default look (the system's
dunstrc, not the tests' instrumented format), the tray icon with its badge docked in trayer, the
menu, an approval waiting (its notification, and its options in the tray's menu), the real
codex-acp's "Sign in" notification (installed by .ci/real-agents) after `agents add`, the
acp-tray window's pages (overview with an approval waiting, agents, sessions, history,
diagnostics, preferences, the welcome of the first start), light and dark, in Debian's chromium
driven by Playwright, and the demo agent's question (`acp-tray prompt demo "ask me a question"`):
its notification, and its form on the window's overview, light and dark.

    .venv/bin/python tests/tools/make_screenshots.py [OUTPUT_DIR]   (default: docs/)

Starts its own Xvfb, session bus, dunst, trayer and acp-tray with the demo agent, in temporary
XDG directories; everything it starts is stopped at the end.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from PIL import Image

from acp_tray.demo.agent import DEMO_NOTICES

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from tests.desktop.session import DesktopSession  # noqa: E402
from tests.real_agents import npm_package_bin  # noqa: E402
from tests.support.browser import ARGS, chromium_executable  # noqa: E402
from tests.support.trays import icon_centre, missing_badges, start_host  # noqa: E402

DUNSTRC = Path("/etc/xdg/dunst/dunstrc")  # Debian's default, as a person who installs dunst gets it
WIDTH, HEIGHT = 700, 380  # the top-right corner: tray, notifications, menu
PAGE_SIZE = (1000, 640)  # the window's pages: a browser window on a laptop
QUESTION_WIDTH = 640  # the overview in one column: the question's card first, at its full width
PAGES = {  # the window's page -> what shows it is drawn
    "overview": 'button:has-text("Allow once")',
    "agents": '[data-agent="demo"]',
    "sessions": '[data-session="demo/default"]',
    "history": "tr.history-row",
    "diagnostics": "li.check",
    "preferences": "#prefs-form",
    "welcome": "#welcome-what",
}


def shot(env: dict[str, str], path: Path) -> Image.Image:
    """The screen's top-right corner, saved as `path`."""
    subprocess.run(["import", "-window", "root", str(path)], env=env, check=True)
    image = Image.open(path).convert("RGB")
    corner = image.crop((image.width - WIDTH, 0, image.width, HEIGHT))
    corner.save(path, optimize=True)
    return corner


def shown(env: dict[str, str]) -> str:
    """What acp-tray has presented lately (dunst's own history holds only what was closed)."""
    history = [sys.executable, "-m", "acp_tray", "history", "-n", "20"]
    return subprocess.run(history, env=env, capture_output=True, text=True).stdout


def until_shown(env: dict[str, str], *titles: str, timeout: float = 60.0) -> None:
    """Until acp-tray has presented every one of `titles` (at most `timeout` s: a busy machine starts
    the daemon and its agents slowly; the picture is taken and checked all the same)."""
    deadline = time.monotonic() + timeout
    while not all(title in shown(env) for title in titles) and time.monotonic() < deadline:
        time.sleep(0.3)


def key(env: dict[str, str], *keys: str) -> None:
    for name in keys:
        subprocess.run(["xdotool", "key", name], env=env, check=True)
        time.sleep(0.4)


def window_address(env: dict[str, str]) -> str:
    """An address of the window with a new key: a key opens one browser context only, once."""
    ui = [sys.executable, "-m", "acp_tray", "ui", "--no-browser"]
    return subprocess.run(ui, env=env, capture_output=True, text=True, check=True).stdout.strip()


def window_pictures(env: dict[str, str], out: Path) -> None:
    """The window's pages, light and dark, as `window-PAGE-SCHEME.png` (a page taller than the
    browser window is taken whole)."""
    from playwright.sync_api import sync_playwright

    executable = chromium_executable()
    assert executable is not None, "no chromium (.ci/system-deps installs Debian's)"
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=executable, headless=True, args=ARGS)
        for scheme in ("light", "dark"):
            context = browser.new_context(color_scheme=scheme, viewport={"width": PAGE_SIZE[0], "height": PAGE_SIZE[1]})
            page = context.new_page()
            url = window_address(env)
            page.goto(url)  # the key for the cookie, once per context
            for name, drawn in PAGES.items():
                page.goto(url.split("/open?")[0] + f"/{name}")
                page.locator(drawn).first.wait_for(timeout=30_000)
                time.sleep(0.3)  # the live parts' first update
                page.screenshot(path=out / f"window-{name}-{scheme}.png", full_page=True)
            context.close()
        browser.close()


def question_pictures(env: dict[str, str], out: Path) -> None:
    """The question's form on the overview, light and dark, as `window-question-SCHEME.png`: in a
    window narrow enough for one column, the page from its top to the end of the card it is in."""
    from playwright.sync_api import sync_playwright

    executable = chromium_executable()
    assert executable is not None, "no chromium (.ci/system-deps installs Debian's)"
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=executable, headless=True, args=ARGS)
        for scheme in ("light", "dark"):
            context = browser.new_context(color_scheme=scheme, viewport={"width": QUESTION_WIDTH, "height": 800})
            page = context.new_page()
            page.goto(window_address(env))  # the key for the cookie: the overview
            page.locator("form.question-form").wait_for(timeout=30_000)
            time.sleep(0.3)
            card = page.locator("section.card", has=page.locator("article.question")).bounding_box()
            assert card is not None
            clip = {"x": 0, "y": 0, "width": QUESTION_WIDTH, "height": card["y"] + card["height"] + 16}
            page.screenshot(path=out / f"window-question-{scheme}.png", clip=clip)  # type: ignore[arg-type]
            context.close()
        browser.close()


def ask_a_question(env: dict[str, str], out: Path) -> subprocess.Popen[bytes]:
    """The demo agent's question, waiting: its notification in dunst, then its form in the window.
    The turn asking it is returned, to be ended."""
    subprocess.run(["dunstctl", "close-all"], env=env, check=True)
    subprocess.run(["xdotool", "mousemove", "10", str(HEIGHT - 10)], env=env, check=True)  # no tooltip over it
    asking = subprocess.Popen(
        [sys.executable, "-m", "acp_tray", "prompt", "demo", "ask me a question"], env=env, stdout=subprocess.DEVNULL
    )
    until_shown(env, "Question")
    time.sleep(1.0)  # dunst draws it
    shot(env, out / "question-notification.png")
    question_pictures(env, out)
    return asking


def main() -> None:
    out = Path(sys.argv[1]) if len(sys.argv) > 1 else ROOT / "docs"
    out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as scratch, DesktopSession(dunstrc=DUNSTRC) as desktop:
        dirs = {name: Path(scratch) / name.lower() for name in ("XDG_CONFIG_HOME", "XDG_STATE_HOME", "XDG_RUNTIME_DIR")}
        for path in dirs.values():
            path.mkdir(mode=0o700)
        env = {**os.environ, **desktop.env, **{k: str(v) for k, v in dirs.items()}, "NO_AT_BRIDGE": "1"}
        env["ACP_TRAY_DEMO_INTERVAL"] = "0.4"
        env["ACP_TRAY_NO_WELCOME"] = "1"  # the pictures open the pages they show themselves
        host = start_host("trayer", env)
        daemon = subprocess.Popen(
            [sys.executable, "-m", "acp_tray", "run"], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
        )
        prompt = asking = None
        try:
            until_shown(env, *(notice["title"] for notice in DEMO_NOTICES))  # the demo's four notices
            deadline = time.monotonic() + 30  # until dunst and the tray have drawn them (a busy machine is slow)
            while missing_badges(shot(env, out / "tray-notifications.png")) and time.monotonic() < deadline:
                time.sleep(0.3)
            full = Path(scratch) / "full.png"
            subprocess.run(["import", "-window", "root", str(full)], env=env, check=True)
            x, y = icon_centre(Image.open(full).convert("RGB"))

            subprocess.run(["xdotool", "mousemove", str(x), str(y), "click", "1"], env=env, check=True)
            time.sleep(0.8)
            key(env, "Down", "Down", "Right")  # "Open acp-tray…", then Recent (the status lines are not selectable)
            shot(env, out / "tray-menu.png")
            key(env, "Left", "Down", "Right")  # out of Recent, into "Do not disturb"
            shot(env, out / "tray-dnd-menu.png")
            key(env, "Escape", "Escape", "Escape")

            subprocess.run(["dunstctl", "close-all"], env=env, check=True)
            subprocess.run(["xdotool", "mousemove", "10", str(HEIGHT - 10)], env=env, check=True)  # no tooltip over it
            prompt = subprocess.Popen(
                [sys.executable, "-m", "acp_tray", "prompt", "demo", "delete the build folder"],
                env=env,
                stdout=subprocess.DEVNULL,
            )
            time.sleep(2.0)
            shot(env, out / "tray-approval-notification.png")
            subprocess.run(["xdotool", "mousemove", str(x), str(y), "click", "1"], env=env, check=True)
            time.sleep(0.8)
            key(env, "Down", "Down", "Right", "Right")  # "Open acp-tray…", Needs you (1) → the request → its options
            shot(env, out / "tray-approval.png")
            key(env, "Escape", "Escape", "Escape", "Escape")

            subprocess.run(["dunstctl", "close-all"], env=env, check=True)  # the approval waits on
            add = [
                sys.executable,
                "-m",
                "acp_tray",
                "agents",
                "add",
                "codex",
                "--",
                *npm_package_bin("@zed-industries/codex-acp"),
            ]
            subprocess.run(add, env=env, check=True, capture_output=True)
            until_shown(env, "Sign in to codex")
            time.sleep(1.0)  # dunst draws it
            shot(env, out / "signin-notification.png")
            window_pictures(env, out)  # the overview with the approval still waiting

            subprocess.run([sys.executable, "-m", "acp_tray", "approve", "1"], env=env, check=True)
            prompt.wait(30)  # the turn ends: the question's turn is the only thing waiting
            asking = ask_a_question(env, out)
        finally:
            for turn in (prompt, asking):
                if turn is not None and turn.poll() is None:
                    turn.terminate()
                    turn.wait(10)
            subprocess.run([sys.executable, "-m", "acp_tray", "quit"], env=env, capture_output=True)
            if daemon.poll() is None:
                daemon.terminate()
            daemon.wait(20)
            host.terminate()
            host.wait(5)


if __name__ == "__main__":
    main()
