"""Notices parsed and validated per second: acp-tray's wire model vs. the SDK's model vs. json.loads.

All three are measured in the same run, interleaved, best of several rounds, because this
machine is noisy; the figures that matter are the ratios.

    python benchmarks/parse_notices.py [--seconds 0.5] [--rounds 7]

Peers:
- ours: the daemon's hot path on a whole JSON-RPC line carrying a `notice` session/update:
        `decode_line` (JSON + JSON-RPC shape check) then `parse_session_update`
- sdk:  the ACP SDK's `SessionNotification.model_validate_json` on an `agent_message_chunk` of
        similar size (the SDK has no notice model)
- raw:  `json.loads` alone on the notice (the floor: no validation at all)
"""

from __future__ import annotations

import argparse
import json
import time
from collections.abc import Callable

from acp.schema import SessionNotification

from acp_tray.agents.transport import decode_line
from acp_tray.protocol.update import NoticeUpdate, parse_session_update

NOTICE = json.dumps(
    {
        "sessionId": "sess_01JD3K9QZ7",
        "update": {
            "sessionUpdate": "notice",
            "severity": "warning",
            "title": "Model request rerouted",
            "description": "The primary model is rate-limited; continuing on the fallback model for this turn.",
            "_meta": {"acme.dev/trace": "7f3a9c"},
        },
    }
)
CHUNK = json.dumps(
    {
        "sessionId": "sess_01JD3K9QZ7",
        "update": {
            "sessionUpdate": "agent_message_chunk",
            "content": {
                "type": "text",
                "text": "The primary model is rate-limited; continuing on the fallback model for this turn. ok",
            },
            "_meta": {"acme.dev/trace": "7f3a9c"},
        },
    }
)


LINE = f'{{"jsonrpc":"2.0","method":"session/update","params":{NOTICE}}}'.encode()


def ours() -> None:
    message = decode_line(LINE)
    assert not isinstance(message, str)
    update = parse_session_update(message["params"])
    assert isinstance(update, NoticeUpdate)


def sdk() -> None:
    SessionNotification.model_validate_json(CHUNK)


def raw() -> None:
    json.loads(NOTICE)


def rate(fn: Callable[[], None], seconds: float) -> float:
    count = 0
    batch = 200
    start = time.perf_counter()
    deadline = start + seconds
    while True:
        for _ in range(batch):
            fn()
        count += batch
        now = time.perf_counter()
        if now >= deadline:
            return count / (now - start)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=0.5)
    parser.add_argument("--rounds", type=int, default=7)
    args = parser.parse_args()
    peers = {"ours": ours, "sdk": sdk, "raw": raw}
    best = dict.fromkeys(peers, 0.0)
    for _ in range(args.rounds):
        for name, fn in peers.items():
            best[name] = max(best[name], rate(fn, args.seconds))
    print(f"sizes: our JSON-RPC line {len(LINE)} B (params {len(NOTICE)} B), sdk chunk params {len(CHUNK)} B")
    for name in peers:
        print(f"{name:>5}: {best[name]:>12,.0f} msg/s")
    print(f"ours / sdk model_validate_json: {best['ours'] / best['sdk']:.2f}x (target >= 1.0)")
    print(f"ours / raw json.loads:          {best['ours'] / best['raw']:.2f}x (cost of validation)")


if __name__ == "__main__":
    main()
