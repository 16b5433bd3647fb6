"""A stand-in for the person's web browser in tests ($BROWSER): appends each address it is asked
to open to $ACP_TRAY_TEST_OPENED, one per line, and opens nothing."""

from __future__ import annotations

import os
import sys

with open(os.environ["ACP_TRAY_TEST_OPENED"], "a", encoding="utf-8") as opened:
    opened.write(sys.argv[1] + "\n")
