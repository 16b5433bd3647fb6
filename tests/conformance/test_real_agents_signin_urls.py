"""The real gemini-cli's "Log in with Google" with no desktop (as over SSH): in ACP mode it writes
"Please visit the following URL…" and Google's address on stdout, between its JSON-RPC lines, and
reads the authorization code with readline on stdin, the ACP connection itself. `acp-tray login`
shows the address and types the code there; offline, Google's token endpoint cannot be reached, so
gemini asks again (a new address), then refuses: said in its words, the agent still answering,
the codes never in the log. HOME of its own, no one's credentials, no network but the registries."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

from acp_tray.files import paths
from tests.conformance.hosting import SignInCase, hosted, quit_leaves_nothing, status_row, tree_processes
from tests.real_agents import npm_bin
from tests.support.daemons import DaemonProcess, cli, cli_env
from tests.support.repo import ROOT

CODES = ("4/0AVMBsJh-first-try", "4/0AVMBsJh-second-try")  # gemini asks twice before it gives up
NO_DESK = ("BROWSER", "DISPLAY", "WAYLAND_DISPLAY")


def test_gemini_user_code_login_shows_googles_address_and_takes_the_code(
    tmp_path: Path, daemons: list[DaemonProcess]
) -> None:
    case = SignInCase("gemini", [*npm_bin("gemini"), "--acp"], "", {})
    marker = str(tmp_path)
    daemon = hosted(case, tmp_path, daemons)
    try:
        login = subprocess.run(
            [sys.executable, "-m", "acp_tray", "login", "gemini", "oauth-personal"],
            input="".join(code + "\n" for code in CODES), capture_output=True, text=True, cwd=ROOT, timeout=180,
            env={k: v for k, v in cli_env().items() if k not in NO_DESK},
        )  # fmt: skip
        out = login.stdout
        assert "gemini asks you to open this page to sign in" in out, login
        assert "\nhttps://accounts.google.com/o/oauth2/v2/auth?" in out and "code_challenge=" in out, out
        assert out.count("sent the code to gemini") == 2, login  # asked again after the first failed
        assert login.returncode == 1 and "Failed to authenticate with user code." in login.stderr, login
        assert "Traceback" not in login.stderr
        assert status_row("gemini")["state"] == "needs sign-in"
        prompt = cli("prompt", "gemini", "hello", timeout=60)  # the ACP connection survived the typed lines
        assert prompt.returncode == 1 and "acp-tray login gemini" in prompt.stderr, prompt
        log = paths.log_file().read_text(encoding="utf-8")
        assert all(code not in log for code in CODES)  # readline echoes it on stdout: masked
        quit_leaves_nothing(daemon, marker)
    finally:
        for pid in tree_processes(marker):
            os.kill(pid, signal.SIGKILL)
