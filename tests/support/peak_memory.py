"""`python tests/support/peak_memory.py REPORT MODULE ARGS...`: runs `python -m MODULE ARGS...` in this
process and, as it ends, writes its peak resident memory in kB to the file REPORT.

The peak is VmHWM from /proc/self/status: this process's own. getrusage's ru_maxrss is no use
here: across exec a process keeps its parent's high-water mark, so a command started from a
test process that holds a few hundred MB would report those too.
"""

from __future__ import annotations

import os
import runpy
import sys
from pathlib import Path


def _peak_kb() -> str:
    status = Path("/proc/self/status").read_text().splitlines()
    return next(line.split()[1] for line in status if line.startswith("VmHWM:"))


def main() -> None:
    report, module, *args = sys.argv[1:]
    sys.argv = [module, *args]
    sys.path[0] = os.getcwd()  # as `python -m` has it, not this file's directory
    try:
        runpy.run_module(module, run_name="__main__", alter_sys=True)
    finally:
        Path(report).write_text(_peak_kb())


if __name__ == "__main__":
    main()
