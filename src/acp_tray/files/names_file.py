"""The small JSON files of the state dir that name what the OS keyring holds (agents' secret
names, push targets): `{"version": 1, KEY: {...}}`, read forgivingly and written 0600 in one step."""

from __future__ import annotations

import json
import logging
from pathlib import Path
from typing import Any

from acp_tray.files.atomic import write_atomically

log = logging.getLogger(__name__)


def read_table(path: Path, key: str, unless_fixed: str) -> dict[str, Any]:
    """The file's `key` table; {} without a file, or (with a warning that ends with `unless_fixed`:
    what does not happen until it is fixed) when it cannot be read or is not such a file."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return {}
    except (OSError, ValueError) as exc:
        log.warning("could not read %s (%s); %s until it is fixed", path, exc, unless_fixed)
        return {}
    table = data.get(key) if isinstance(data, dict) else None
    return {str(name): value for name, value in table.items()} if isinstance(table, dict) else {}


def write_table(path: Path, key: str, table: dict[str, Any]) -> None:
    write_atomically(path, json.dumps({"version": 1, key: dict(sorted(table.items()))}, indent=1), mode=0o600)
