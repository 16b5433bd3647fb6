"""Run acp-tray with ``python -m acp_tray``."""

from acp_tray.cli import main

raise SystemExit(main())
