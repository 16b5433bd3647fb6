"""A call to the OS keyring from an op, said while it waits: a keyring that is locked, or has no
collection yet, opens a dialog (GNOME Keyring's "choose a password for the new keyring") and its
call returns only once the person has answered it. After a moment the op's caller is told so (a
"waiting" event: it then waits without a time limit); the call itself is never cut short."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable
from typing import TypeVar

from acp_tray.control.replies import Waiting
from acp_tray.control.server import Emit

log = logging.getLogger(__name__)

T = TypeVar("T")
SAY_AFTER = 1.0  # seconds: a keyring that answers sooner needed no one
KEYRING_WAITING = "Waiting for your keyring: a dialog may have opened"


async def keyring_call(call: Callable[[], T], emit: Emit[Waiting]) -> T:
    """`call()` (blocking) in a worker thread; after SAY_AFTER seconds without its answer, the
    caller is told it waits for the keyring. A caller gone meanwhile changes nothing: the call ends
    as the person answers the dialog."""
    pending = asyncio.ensure_future(asyncio.to_thread(call))
    done, _ = await asyncio.wait({pending}, timeout=SAY_AFTER)
    if not done:
        log.info("waiting for the OS keyring (it may have opened a dialog)")
        with contextlib.suppress(ConnectionError):
            emit(Waiting(text=KEYRING_WAITING))
    return await asyncio.shield(pending)
