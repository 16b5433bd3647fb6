"""`acp-tray doctor [--json]`: what works here and how to fix the rest (the checks: doctor.py). The
daemon runs it for the window's diagnostics page with `--tray-backend` (its running tray's)."""

from __future__ import annotations

import argparse
import asyncio
import json

from acp_tray.cli.config import config_path
from acp_tray.cli.output import EXIT_FAILED


def cmd_doctor(args: argparse.Namespace) -> int:
    """Exit 0 when nothing is a problem, 1 otherwise (notes are not problems)."""
    from acp_tray.doctor.check import as_json, report
    from acp_tray.doctor.diagnose import diagnose

    path, _ = config_path(args)
    checks = asyncio.run(diagnose(path, tray_backend=args.tray_backend))
    if args.json:
        print(json.dumps(as_json(checks), ensure_ascii=True))
    else:
        print(report(checks))
    return EXIT_FAILED if any(check.status == "problem" for check in checks) else 0
