"""`acp-tray dnd on | off | for DURATION | until TIME | status`: do not disturb, written to the
preferences file and applied by a running daemon at once."""

from __future__ import annotations

import argparse
import contextlib
import json

from acp_tray.cli.config import config_path
from acp_tray.cli.output import EXIT_FAILED, fail
from acp_tray.prefs.load import PreferencesError, load_preferences
from acp_tray.prefs.write import set_dnd
from acp_tray.presentation.clock import SystemClock
from acp_tray.presentation.dnd import DurationError, dnd_state, dnd_switch


def cmd_dnd(args: argparse.Namespace) -> int:
    path, explicit = config_path(args)
    clock = SystemClock()
    try:
        prefs = load_preferences(path, explicit=explicit).prefs
        if args.action == "status":
            state = dnd_state(prefs.dnd, clock.now())
            if args.json:
                print(json.dumps(state.as_json()))
            else:
                print(f"do not disturb: {state.describe()}")
            return 0
        value = " ".join(getattr(args, "duration", None) or []) or None  # for and until: their words
        enabled, until = dnd_switch(args.action, value, clock.now(), prefs.dnd.morning)
        prefs = set_dnd(path, enabled=enabled, until=until)
    except (PreferencesError, DurationError) as exc:
        return fail(str(exc), EXIT_FAILED)
    _apply_in_daemon()
    print(f"do not disturb: {dnd_state(prefs.dnd, clock.now()).describe()}")
    return 0


def _apply_in_daemon() -> None:
    """A running daemon applies the file just written at once: `acp-tray dnd on; acp-tray status`
    says "on" (its watcher would apply it too, a moment later). No daemon: the file is all there is."""
    from acp_tray.control import api
    from acp_tray.control.client import NoDaemonError, ReplyError, request

    with contextlib.suppress(NoDaemonError, ReplyError, OSError):
        request(api.PREFS_APPLY, api.Args(), timeout=10.0)
