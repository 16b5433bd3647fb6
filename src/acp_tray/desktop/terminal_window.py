"""Open a command in the person's terminal emulator (for sign-ins that need a terminal, started from
the tray or a notification). Linux/BSD: `$TERMINAL`, `x-terminal-emulator`, then common ones;
macOS: Terminal.app; Windows: a new console window.
"""

from __future__ import annotations

import os
import shlex
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Callable, Mapping
from functools import partial
from pathlib import Path
from typing import IO

from acp_tray.logs.text import DESCRIPTION_LIMIT, plain_line
from acp_tray.prefs.names import pasteable, shell_line

SETTLE = 1.0  # s: an emulator that cannot open a window (no display) ends within this

# how each emulator takes a command to run (the first word of $TERMINAL is looked up here too)
RUN_FLAG = {
    "gnome-terminal": ["--"],
    "kgx": ["--"],
    "ptyxis": ["--"],
    "tilix": ["-e"],
    "xfce4-terminal": ["-x"],
    "mate-terminal": ["-x"],
    "kitty": [],
    "foot": [],
    "wezterm": ["start", "--"],
    "ghostty": ["-e"],
}
COMMON = (
    "gnome-terminal",
    "konsole",
    "xfce4-terminal",
    "mate-terminal",
    "tilix",
    "kgx",
    "ptyxis",
    "alacritty",
    "kitty",
    "foot",
    "wezterm",
    "ghostty",
    "xterm",
)


class NoTerminalError(Exception):
    pass


def cli_command() -> list[str]:
    """How to run acp-tray's own command line (a one-file build is its own interpreter)."""
    if getattr(sys, "frozen", False):
        return [sys.executable]
    return [sys.executable, "-m", "acp_tray"]


def _with_command(emulator: list[str], argv: list[str]) -> list[str]:
    flag = RUN_FLAG.get(os.path.basename(emulator[0]), ["-e"])
    return [*emulator, *flag, *argv]


def terminal_command(argv: list[str], env: Mapping[str, str] | None = None) -> list[str] | None:
    """The command that runs `argv` in a new terminal window here, or None when none is found."""
    env = os.environ if env is None else env
    if sys.platform == "darwin":
        script = f'tell application "Terminal" to do script {_applescript(shell_line(argv))}'
        return ["osascript", "-e", script, "-e", 'tell application "Terminal" to activate']
    path = env.get("PATH")
    chosen = env.get("TERMINAL", "").strip()
    if chosen:
        words = shlex.split(chosen)
        found = shutil.which(words[0], path=path)
        if found:
            return _with_command([found, *words[1:]], argv)
    for name in ("x-terminal-emulator", *COMMON):
        found = shutil.which(name, path=path)
        if found:
            return _with_command([found], argv)
    return None


def _applescript(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def open_in_terminal(
    argv: list[str], env: Mapping[str, str] | None = None, *, hint: str = "", settle: float = 0.0
) -> None:
    """Start `argv` in a new terminal window without waiting for it; NoTerminalError when none is
    found (`hint`: what the person can run in a terminal instead), or when the emulator fails
    within `settle` seconds (xterm with no display to open a window on ends at once)."""
    terminal_starter(argv, env, hint=hint)(settle)


def terminal_starter(
    argv: list[str], env: Mapping[str, str] | None = None, *, hint: str = ""
) -> Callable[[float], None]:
    """The terminal emulator that runs `argv`, found now (NoTerminalError when there is none);
    calling the result with `settle` starts it and waits up to that long to see it fail."""
    if sys.platform == "win32":
        return partial(_new_console, argv, _env(env))
    command = terminal_command(argv, env)
    if command is None:
        raise NoTerminalError(
            "no terminal emulator found: set $TERMINAL (e.g. TERMINAL=xterm) or install one"
            + (f", or run `{hint}` in a terminal yourself" if hint else "")
        )
    return partial(_start, command, _env(env), hint)


def _new_console(argv: list[str], env: dict[str, str] | None, settle: float) -> None:
    """Windows: a console window of its own (a console always opens)."""
    subprocess.Popen(argv, creationflags=getattr(subprocess, "CREATE_NEW_CONSOLE", 0), env=env)


def _env(env: Mapping[str, str] | None) -> dict[str, str] | None:
    return dict(env) if env is not None else None


def _start(command: list[str], env: dict[str, str] | None, hint: str, settle: float) -> None:
    run = f": run `{hint}` in a terminal yourself" if hint else ""
    with tempfile.TemporaryFile() as errors:
        try:
            emulator = subprocess.Popen(
                command, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=errors, env=env,
                start_new_session=True,
            )  # fmt: skip
        except OSError as exc:
            raise NoTerminalError(
                f"could not start the terminal emulator {command[0]}: {exc.strerror or exc}{run}"
            ) from None
        failed = _failed_at_once(emulator, errors, settle)
    if failed is not None:
        name = Path(command[0]).name
        said = failed if failed.startswith(f"{name}:") else f"{name}: {failed}"
        raise NoTerminalError(f"no terminal window could open ({said}){run}")


def _failed_at_once(emulator: subprocess.Popen[bytes], errors: IO[bytes], settle: float) -> str | None:
    """Why the emulator ended with a failure within `settle` seconds (its last line of stderr), or None."""
    try:
        code = emulator.wait(timeout=settle) if settle > 0 else None
    except subprocess.TimeoutExpired:
        return None
    if not code:
        return None
    errors.seek(0)
    lines = [plain_line(line, DESCRIPTION_LIMIT) for line in errors.read(4096).decode("utf-8", "replace").splitlines()]
    said = [line for line in lines if line.strip()]
    return said[-1] if said else f"exit code {code}"


def sign_in_starter(agent: str, method_id: str) -> Callable[[], None]:
    """A terminal sign-in chosen on the desktop (the tray, a notification, the window): `acp-tray
    login AGENT METHOD --pause` in a new terminal window, which runs the method there and tells the
    daemon how it went (`login.finished`). The emulator is found now (NoTerminalError says what to
    run instead); calling the result opens it, and says so too when it could not open a window
    (blocking for up to SETTLE seconds: call it off the event loop)."""
    argv = [*cli_command(), "login", agent, method_id, "--pause"]
    return partial(terminal_starter(argv, hint=pasteable("login", agent, method_id)), SETTLE)


def open_sign_in(agent: str, method_id: str) -> None:
    """`sign_in_starter`, at once (blocking for up to SETTLE seconds)."""
    sign_in_starter(agent, method_id)()
