"""Today's cost per agent on disk (`usage.json` in the state directory, 0600): one day's totals
only, so a restart does not forget what the day cost; `{"version": 1, "days": {DAY: {AGENT:
{CURRENCY: AMOUNT}}}}`. A file that cannot be read is reported and counting starts from zero."""

from __future__ import annotations

import math
from datetime import date
from pathlib import Path

from acp_tray.files.names_file import read_table, write_table
from acp_tray.presentation.usage_book import Totals

KEY = "days"
MAX_AGENTS = 200
CURRENCY_LIMIT = 16


def load_totals(path: Path | None, today: date) -> Totals:
    """Today's totals as kept; {} without a file, for another day, or for a file not of this shape."""
    if path is None:
        return {}
    day = read_table(path, KEY, "today's cost counts from zero").get(today.isoformat())
    if not isinstance(day, dict):
        return {}
    totals: Totals = {}
    for agent, spent in list(day.items())[:MAX_AGENTS]:
        if isinstance(agent, str) and isinstance(spent, dict):
            totals[agent] = {
                str(currency)[:CURRENCY_LIMIT]: float(amount)
                for currency, amount in spent.items()
                if type(amount) in (int, float) and math.isfinite(amount) and amount >= 0
            }
    return totals


def save_totals(path: Path, today: date, totals: Totals) -> None:
    rounded = {agent: {c: round(a, 9) for c, a in spent.items()} for agent, spent in totals.items()}
    write_table(path, KEY, {today.isoformat(): rounded})
