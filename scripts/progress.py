"""`make run`'s long steps, saying how far they are: `progress.py WHAT -- COMMAND...` runs COMMAND
(its output passed through) and, while it runs, prints "make: still WHAT (N s so far)" every
$PROGRESS_EVERY seconds (10 by default), so that a build that takes a minute is not a silent one.
Exits with COMMAND's status. Standard library only: it runs before acp-tray is installed."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
import time


def main(argv: list[str]) -> int:
    if len(argv) < 3 or argv[1] != "--":
        print("usage: progress.py WHAT -- COMMAND...", file=sys.stderr)
        return 2
    what, command = argv[0], argv[2:]
    every = float(os.environ.get("PROGRESS_EVERY", "10"))
    started = time.monotonic()
    done = threading.Event()

    def tick() -> None:
        while not done.wait(every):
            print(f"make: still {what} ({time.monotonic() - started:.0f} s so far)", flush=True)

    ticker = threading.Thread(target=tick, daemon=True)
    ticker.start()
    try:
        code = subprocess.call(command)
    except OSError as exc:
        print(f"make: could not run {command[0]}: {exc}", file=sys.stderr)
        code = 127
    finally:
        done.set()
        ticker.join()
    if code == 0:
        print(f"make: done {what} in {time.monotonic() - started:.0f} s", flush=True)
    return code


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
