"""`acp-tray` with a shorter deadline for an agent's download, for the tests.

An archive may take up to `DOWNLOAD_DEADLINE` (an hour) as a whole, and neither the preferences
nor the environment can change it. This runs the real `acp_tray.cli.main` with that module
constant set from ACP_TRAY_TEST_DOWNLOAD_DEADLINE (seconds), so a test sees it pass in seconds.
"""

from __future__ import annotations

import os
import sys

from acp_tray.registry import install

assert hasattr(install, "DOWNLOAD_DEADLINE"), "install.DOWNLOAD_DEADLINE moved: update this test"
install.DOWNLOAD_DEADLINE = float(os.environ["ACP_TRAY_TEST_DOWNLOAD_DEADLINE"])

from acp_tray.cli import main  # noqa: E402  (after the change, as a command would import it)

raise SystemExit(main(sys.argv[1:]))
