"""`acp-tray doctor`'s push checks: the targets (by name, never their URLs), whether Apprise loads,
and the away source `when = "away"` asks."""

from __future__ import annotations

from pathlib import Path

from acp_tray.doctor import Check, Status
from acp_tray.files import paths
from acp_tray.prefs.model import Preferences


def _prefs(path: Path) -> Preferences:
    from acp_tray.prefs.load import PreferencesError, read_preferences

    try:
        return read_preferences(path) if path.exists() else Preferences()
    except PreferencesError:  # said by the preferences check
        return Preferences()


def push_checks(prefs_path: Path) -> list[Check]:
    from acp_tray.away.select import away_source
    from acp_tray.push.sender import apprise_version
    from acp_tray.push.targets import PushTargets

    push = _prefs(prefs_path).push
    targets = PushTargets(paths.push_targets_file()).read()
    if targets:
        listed = ", ".join(f"{name} ({service})" for name, service in targets.items())
        checks = [
            Check("push targets", "ok", f"{listed}; pushed {push.when}" + (" away" if push.when == "away" else ""))
        ]
    else:
        checks = [Check("push targets", "note", "none (`acp-tray push add NAME` adds one)")]
    try:
        checks.append(Check("Apprise", "ok", f"{apprise_version()} loads"))
    except Exception as exc:  # ImportError, or a broken install
        status: Status = "problem" if targets else "note"
        checks.append(Check("Apprise", status, f"does not load ({type(exc).__name__}: {exc})", "pip install apprise"))
    source = away_source().name
    if source != "none":
        checks.append(Check("away source", "ok", source))
    elif targets and push.when == "away":
        checks.append(
            Check(
                "away source",
                "problem",
                'none here: with [push] when = "away" nothing is pushed',
                'set [push] when = "always" (or run a desktop session with an idle or lock source)',
            )
        )
    else:
        checks.append(Check("away source", "note", 'none here: [push] when = "away" would never push'))
    return checks
