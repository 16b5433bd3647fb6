"""The preferences file a command works on: `--config PATH`, or the platform's default."""

from __future__ import annotations

import argparse
from pathlib import Path

from acp_tray.files import paths


def config_path(args: argparse.Namespace) -> tuple[Path, bool]:
    """(the path, whether --config named it)."""
    if args.config is not None:
        return Path(args.config).expanduser(), True
    return paths.config_file(), False
