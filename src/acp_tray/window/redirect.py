"""The browser is opened on a file, never on the window's address: a 0600 page in the private runtime
directory that sends the browser on to the one-shot address. A command line (the browser's, the
desktop's opener's) can be read by every local user; the file's path shows nothing of the key, and
only its user can read the file. The window removes the file when its key is used; files older than
a key's life are removed by the next `acp-tray ui` and by the window."""

from __future__ import annotations

import contextlib
import html
import sys
import time
from pathlib import Path

from acp_tray.control.endpoint import check_private_dir, runtime_dir
from acp_tray.files.atomic import write_atomically
from acp_tray.files.private import make_dir
from acp_tray.window.keys import OPEN_FOR, redirect_name

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


def open_in_browser(url: str, key: str) -> bool:
    """The person's default browser, as the desktop opens links, on the redirect file for `url`;
    False when there is no browser."""
    import webbrowser

    path = write_redirect(url, key)
    try:
        if webbrowser.open(path.as_uri(), new=2):
            return True
    except webbrowser.Error:
        pass
    forget(key)
    return False
