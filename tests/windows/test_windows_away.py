"""The away source on Windows CPython under Wine: user32's GetLastInputInfo gives the idle time."""

from __future__ import annotations

import json

from tests.windows.wine import lane_only, run

pytestmark = lane_only

READ_TWICE = """
import json, time
from acp_tray.away.select import away_source, is_away
source = away_source()
first = source.idle_seconds()
time.sleep(1)
print(json.dumps([source.name, first, source.idle_seconds(), source.locked(), is_away(source, 0)]))
"""


def test_get_last_input_info_gives_an_idle_time_that_grows_while_nothing_happens() -> None:
    code, out = run("-c", READ_TWICE)
    assert code == 0, out
    name, first, second, locked, away = json.loads(out.strip().splitlines()[-1])
    assert name == "GetLastInputInfo"
    assert isinstance(first, float) and isinstance(second, float) and 0 <= first <= second
    assert locked is False and away is True  # idle for at least 0 s: away by any threshold's floor
