"""An ASGI app served for a test by uvicorn on a random port of 127.0.0.1, in a thread of the test's process."""

from __future__ import annotations

import contextlib
import socket
import threading
from collections.abc import Iterator
from typing import TYPE_CHECKING

from tests.support.waiting import until

if TYPE_CHECKING:
    from starlette.types import ASGIApp


@contextlib.contextmanager
def serve(app: ASGIApp) -> Iterator[str]:
    """The app at the URL yielded (`http://127.0.0.1:PORT`) until the block ends; then stopped, its
    open server-sent event streams ended too."""
    import uvicorn
    from sse_starlette.sse import AppStatus

    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))  # bound here: the port is known before uvicorn starts, and no one else takes it
    port = listener.getsockname()[1]
    # timeout_graceful_shutdown: a backstop for a stream that outlives the stop below
    server = uvicorn.Server(uvicorn.Config(app, log_level="warning", timeout_graceful_shutdown=2))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [listener]}, name="uvicorn", daemon=True)
    thread.start()
    try:
        until(lambda: server.started or not thread.is_alive(), 10, "uvicorn to start")
        assert server.started, "uvicorn did not start (its error is in the captured log)"
        yield f"http://127.0.0.1:{port}"
    finally:
        # sse-starlette learns of a shutdown from the signals uvicorn handles, which a thread does not
        # get: told here (process-wide, so undone once the server has stopped)
        AppStatus.should_exit = True
        server.should_exit = True
        thread.join(10)
        AppStatus.should_exit = False
        listener.close()
    assert not thread.is_alive(), "uvicorn did not stop within 10 s"
