"""The `diagnostics` op: `acp-tray doctor`'s checks run by the daemon itself, so that they name
the tray backend it runs (which `doctor` in a terminal can only guess); the window's diagnostics
page shows them."""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from acp_tray.control.api import CheckRow
from acp_tray.files.paths import config_file

if TYPE_CHECKING:
    from acp_tray.app.daemon import Daemon

log = logging.getLogger(__name__)


class DiagnosticsOps:
    def __init__(self, daemon: Daemon) -> None:
        self._daemon = daemon

    async def diagnostics(self) -> list[CheckRow]:
        from acp_tray.doctor import diagnose, report  # on demand: it loads the D-Bus and X11 clients

        daemon = self._daemon
        checks = await diagnose(daemon.prefs_path or config_file(), tray_backend=daemon.tray_backend or "none")
        log.info("diagnostics:\n%s", report(checks))
        return [{"name": c.name, "status": c.status, "detail": c.detail, "fix": c.fix} for c in checks]
