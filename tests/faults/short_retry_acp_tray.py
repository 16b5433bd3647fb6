"""`acp-tray` with a shorter notifier retry interval, for the fault tests.

The chain retries a failed notification backend after `RETRY_AFTER` (30 s), and neither the
preferences nor the environment can change it; the value is bound as the default of
`NotifierChain(retry_after=...)`. This runs the real `acp_tray.cli.main` with that default set
from ACP_TRAY_TEST_RETRY_AFTER (seconds), so a test can see the recovery in a few seconds.
"""

from __future__ import annotations

import os
import sys

from acp_tray.notifiers.chain import NotifierChain

defaults = NotifierChain.__init__.__kwdefaults__
assert defaults is not None and "retry_after" in defaults, "NotifierChain(retry_after=...) moved: update this test"
defaults["retry_after"] = float(os.environ["ACP_TRAY_TEST_RETRY_AFTER"])

from acp_tray.cli import main  # noqa: E402  (after the patch, as the daemon would import it)

raise SystemExit(main(sys.argv[1:]))
