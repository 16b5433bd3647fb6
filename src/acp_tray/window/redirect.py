"""The browser is opened on a file, never on the window's address: a 0600 page in the private runtime
directory that sends the browser on to the one-shot address. A command line (the browser's, the
desktop's opener's) can be read by every local user; the file's path shows nothing of the key, and
only its user can read the file. The window removes the file when its key is used; files older than
a key's life are removed by the next `acp-tray ui` and by the window."""

from __future__ import annotations

import contextlib
import html
import os
import shlex
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from acp_tray.control.endpoint import check_private_dir, runtime_dir
from acp_tray.files.atomic import write_atomically
from acp_tray.files.private import make_dir
from acp_tray.logs.text import plain_line
from acp_tray.window.keys import OPEN_FOR, redirect_name

BROWSER_WAIT = 5.0  # seconds a browser's command has to fail in; still running then, it has the page

PAGE = """<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="referrer" content="no-referrer">
<meta http-equiv="refresh" content="0;url={url}">
<title>Opening acp-tray…</title>
</head>
<body>
<p>Opening the <a href="{url}">acp-tray window</a>…</p>
</body>
</html>
"""


def write_redirect(url: str, key: str) -> Path:
    """The redirect file for `url` (which holds the one-shot `key`): 0600, in the private runtime directory."""
    folder = runtime_dir()
    make_dir(folder)
    if sys.platform != "win32":  # on Windows the folder is in the person's own profile, private by its ACL
        check_private_dir(folder)
    sweep(folder)
    path = folder / redirect_name(key)
    write_atomically(path, PAGE.format(url=html.escape(url, quote=True)), mode=0o600)
    return path


def forget(key: str) -> None:
    """The redirect file of a key just used, if there is one."""
    with contextlib.suppress(OSError):
        (runtime_dir() / redirect_name(key)).unlink()


def sweep(folder: Path, now: float | None = None) -> None:
    """Remove the redirect files whose keys have expired."""
    oldest = (time.time() if now is None else now) - OPEN_FOR - 5
    for path in folder.glob("open-*.html"):
        with contextlib.suppress(OSError):
            if path.lstat().st_mtime < oldest:
                path.unlink()


def open_in_browser(url: str, key: str) -> str | None:
    """The person's browser on the redirect file for `url`: $BROWSER when set (their choice, each
    of its commands in turn), else the desktop's opener (xdg-open; macOS `open`), else whatever
    Python's webbrowser finds. A command that ends in failure within BROWSER_WAIT seconds (a
    browser refusing to start, an opener finding none) did not open it. Why no browser opened
    it, in plain words (None: one did)."""
    path = write_redirect(url, key)
    commands = _browser_commands(path.as_uri())
    failures = []
    for command in commands:
        why = _failed(command)
        if why is None:
            return None
        failures.append(why)
    if not commands and _webbrowser(path.as_uri()):
        return None
    forget(key)
    return "; ".join(failures) or "no web browser was found"


def _browser_commands(uri: str) -> list[list[str]]:
    """The commands to try, `uri` in each: $BROWSER's, read as Python's webbrowser reads them (a
    line with "%s" is a command line, "%s" the address, a final "&" dropped: every command is
    watched the same way; any other line is a program's path, the address added), else the
    desktop's opener."""
    lines = [line.strip() for line in os.environ.get("BROWSER", "").split(os.pathsep) if line.strip()]
    chosen = [_argv(line) for line in lines]
    commands = [argv[:-1] if argv[-1] == "&" else argv for argv in chosen if argv and argv != ["&"]]
    if not commands and sys.platform != "win32":
        opener = "open" if sys.platform == "darwin" else shutil.which("xdg-open")
        commands = [[opener]] if opener else []
    return [[a.replace("%s", uri) for a in argv] if any("%s" in a for a in argv) else [*argv, uri] for argv in commands]


def _argv(line: str) -> list[str]:
    """One line of $BROWSER as a command (one that cannot be split, an unclosed quote, is a path: it
    then fails to run, and says so)."""
    if "%s" not in line:
        return [line]
    try:
        return shlex.split(line)
    except ValueError:
        return [line.replace("%s", "").strip()]


def _failed(argv: list[str]) -> str | None:
    """Run a browser's command; why it failed (it could not be run, or it ended with an error
    within BROWSER_WAIT seconds, its last line of errors said), None when it is running or done."""
    name = os.path.basename(argv[0])
    with tempfile.TemporaryFile() as errors:
        try:
            process = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stderr=errors, start_new_session=True)
        except OSError as exc:
            return f"{name} could not be run ({exc.strerror or exc})"
        try:
            code = process.wait(BROWSER_WAIT)
        except subprocess.TimeoutExpired:
            return None  # still running: a browser with the page
        if code == 0:
            return None
        errors.seek(0)
        said = [line for line in errors.read(4096).decode("utf-8", "replace").splitlines() if line.strip()]
    return f"{name} ended with exit code {code}" + (f" ({plain_line(said[-1], 200)})" if said else "")


def _webbrowser(uri: str) -> bool:
    import webbrowser

    try:
        return webbrowser.open(uri, new=2)
    except webbrowser.Error:
        return False
