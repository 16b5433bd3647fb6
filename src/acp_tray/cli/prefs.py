"""`acp-tray prefs path | show | validate [FILE] | edit`: the preferences file."""

from __future__ import annotations

import argparse
import contextlib
import os
import subprocess
import sys
from pathlib import Path

from acp_tray.cli.config import config_path
from acp_tray.cli.output import EXIT_FAILED, fail
from acp_tray.desktop.edit_file import editor_argv, open_in_default_app
from acp_tray.prefs.load import PreferencesError, load_preferences, read_preferences
from acp_tray.prefs.model import dump


def cmd_prefs(args: argparse.Namespace) -> int:
    path, explicit = config_path(args)
    if args.action == "path":
        print(path)
        return 0
    if args.action == "validate":
        target = Path(args.file).expanduser() if args.file else path
        try:
            read_preferences(target)
        except PreferencesError as exc:
            print(exc, file=sys.stderr)
            return EXIT_FAILED
        print(f"{target}: ok")
        return 0
    if args.action == "show":
        try:
            prefs = load_preferences(path, explicit=explicit).prefs
        except PreferencesError as exc:
            return fail(str(exc), EXIT_FAILED)
        import tomlkit  # here only: the daemon does not need it

        print(tomlkit.dumps(dump(prefs)), end="")
        return 0
    return _edit(path, explicit)


def _editor_command(path: Path) -> list[str] | None:
    """An editor that returns when the person is done (so the file can be checked after)."""
    chosen = editor_argv(path)
    if chosen is not None:
        return chosen
    if sys.platform == "darwin":
        return ["open", "-W", "-t", str(path)]  # wait, so the file can be checked after
    return None


def _open_with_desktop(path: Path) -> int:
    """No $VISUAL/$EDITOR: the desktop's default application (xdg-open), which returns at once, so
    the file cannot be checked here; and when it fails, say so and what to set."""
    problem = open_in_default_app(path, wait=None)
    if problem is not None:
        return fail(
            f"{problem}: set $VISUAL or $EDITOR (e.g. `export EDITOR=nano`), or edit {path} by hand", EXIT_FAILED
        )
    print(f"opened {path} with the default application; after saving, `acp-tray prefs validate` checks it")
    return 0


def _edit(path: Path, explicit: bool) -> int:
    with contextlib.suppress(PreferencesError):  # open a broken file anyway: that is how it gets fixed
        load_preferences(path, explicit=explicit)  # creates the commented default file on first use
    if sys.platform == "win32" and not os.environ.get("VISUAL") and not os.environ.get("EDITOR"):
        os.startfile(path)  # type: ignore[attr-defined]
        print(f"opened {path} in the default editor; run `acp-tray prefs validate` after saving")
        return 0
    command = _editor_command(path)
    if command is None:
        return _open_with_desktop(path)
    try:
        subprocess.run(command, check=False)
    except OSError as exc:
        return fail(f"could not start {command[0]!r}: {exc}", EXIT_FAILED)
    try:
        read_preferences(path)
    except PreferencesError as exc:
        print(f"{exc}\nThe file is saved as you left it; a running acp-tray keeps its last good settings.")
        return EXIT_FAILED
    print(f"{path}: ok; a running acp-tray applies it now")
    return 0
