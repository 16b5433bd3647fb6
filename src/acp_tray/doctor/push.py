"""`acp-tray doctor`'s push checks: the targets (by name, never their URLs) and whether Apprise
loads; doctor's "away" line names the away source that `when = "away"` asks."""

from __future__ import annotations

from acp_tray.away.source import AwaySource
from acp_tray.doctor.check import Check, Status
from acp_tray.files import paths
from acp_tray.prefs.model import PushPrefs


def push_checks(push: PushPrefs, away: AwaySource) -> list[Check]:
    """The targets (ok; a problem when `when = "away"` and this machine has no away source: nothing
    would be pushed) and Apprise; the away source itself is doctor's "away" line."""
    from acp_tray.push.sender import apprise_version
    from acp_tray.push.targets import PushTargets

    targets = PushTargets(paths.push_targets_file()).read()
    listed = ", ".join(f"{name} ({service})" for name, service in targets.items())
    when = {"away": "while you are away", "always": "always", "never": "never"}[push.when]
    if not targets:
        checks = [Check("push targets", "note", "none (`acp-tray push add NAME` adds one)")]
    elif push.when == "away" and away.name == "none":
        fix = 'set [push] when = "always", or run where the idle time or a lock can be read (see "away")'
        checks = [Check("push targets", "problem", f"{listed}; nothing is pushed: no away source here", fix)]
    else:
        checks = [Check("push targets", "ok", f"{listed}; pushed {when}")]
    try:
        checks.append(Check("Apprise", "ok", f"{apprise_version()} loads"))
    except Exception as exc:  # ImportError, or a broken install
        status: Status = "problem" if targets else "note"
        checks.append(Check("Apprise", status, f"does not load ({type(exc).__name__}: {exc})", "pip install apprise"))
    return checks
