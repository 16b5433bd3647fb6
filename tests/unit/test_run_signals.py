"""`run --headless` (and `notifier = "console"`, and the fallback when the tray fails) owns the
signals: SIGINT and SIGTERM stop the daemon. On Windows the loop has no `add_signal_handler`."""

from __future__ import annotations

import asyncio
import signal

import pytest

from acp_tray.app.compose import stop_on_signals


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM], ids=["SIGINT", "SIGTERM"])
def test_a_signal_stops_the_headless_daemon(signum: int) -> None:
    before = {sig: signal.getsignal(sig) for sig in (signal.SIGINT, signal.SIGTERM)}

    async def main() -> bool:
        stop = asyncio.Event()
        stop_on_signals(stop)  # Windows, before: NotImplementedError
        asyncio.get_running_loop().call_later(0.05, signal.raise_signal, signum)
        try:
            await asyncio.wait_for(stop.wait(), 10)
        except TimeoutError:
            return False
        return True

    try:
        assert asyncio.run(main()), "the signal did not stop the loop"
    finally:
        for sig, handler in before.items():
            signal.signal(sig, handler)
