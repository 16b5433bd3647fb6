"""Push on Windows CPython under Wine: away by GetLastInputInfo, and one push through Apprise to a
local HTTP server on this machine standing in for the service (Wine's sockets are the host's)."""

from __future__ import annotations

import json

from tests.support.push_server import push_service
from tests.windows.wine import lane_only, run

pytestmark = lane_only

PUSH = """
import json, sys
from acp_tray.away.select import away_source, is_away
from acp_tray.push.sender import deliver
source = away_source()
accepted = deliver(sys.argv[1], "bot: Build failed", "pushed from Windows")
print(json.dumps([source.name, is_away(source, 0), accepted]))
"""


def test_one_push_reaches_the_service_from_windows_while_away() -> None:
    with push_service() as service:
        code, out = run("-c", PUSH, f"json://127.0.0.1:{service.port}/hook-windows")
        received = [r.json() for r in service.received]
    assert code == 0, out
    name, away, accepted = json.loads(out.strip().splitlines()[-1])
    assert (name, away, accepted) == ("GetLastInputInfo", True, True)
    assert [(r["title"], r["message"]) for r in received] == [("bot: Build failed", "pushed from Windows")]
