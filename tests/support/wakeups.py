"""A process's wake-ups, counted as the kernel does: context switches of each of its threads.

A thread that sleeps until something happens (a readable fd, a signal, a timer it set) switches
once per wake-up; a thread that ticks switches at every tick. Used by the idle tests and by
`benchmarks/tray_idle.py`.
"""

from __future__ import annotations

from pathlib import Path


def switches(pid: int) -> dict[str, int]:
    """Context switches (voluntary and not) of each thread, by thread id."""
    counts = {}
    for task in Path(f"/proc/{pid}/task").iterdir():
        try:
            lines = (task / "status").read_text().splitlines()
        except (FileNotFoundError, ProcessLookupError):  # the thread just ended
            continue
        fields = (line.split(":") for line in lines)
        counts[task.name] = sum(int(value) for name, value in fields if name.endswith("ctxt_switches"))
    return counts


def wakeups(before: dict[str, int], after: dict[str, int]) -> int:
    """Switches in between, of the threads alive at the end (a thread that ended takes its count along)."""
    return sum(count - before.get(tid, 0) for tid, count in after.items())
