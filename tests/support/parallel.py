"""Which tests a parallel run (`make test`: pytest-xdist, `--dist loadgroup`) keeps together: the
tests of each group below run on one worker, one after another, never beside each other.

xdist's own `xdist_group` mark is not used: with pytest 9.2 its group no longer reaches the
scheduler (pytest-dev/pytest-xdist#1386), so the groups are read from this table instead.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from xdist.scheduler import LoadGroupScheduling

TESTS = Path(__file__).resolve().parent.parent

ONE_AT_A_TIME = {
    # they count a process's wake-ups or run the benchmarks: beside each other they would measure each other
    "measure": (
        "integration/test_footprint.py",
        "integration/test_prefs_watch.py",
        "integration/test_benchmarks_stress.py",
        "integration/test_benchmark_control.py",
    ),
    # useradd and userdel lock /etc/passwd (two at once fail), and the user is made once for the module
    "other-user": ("security/test_other_user.py", "security/test_window_opening.py"),
    # the module's sdist, wheel, venv and PyInstaller binary are built once, not once per worker
    "packaging": ("integration/test_packaging.py",),
}

GROUP_OF = {f"tests/{module}": group for group, modules in ONE_AT_A_TIME.items() for module in modules}
_gone = [module for module in GROUP_OF if not (TESTS.parent / module).is_file()]
if _gone:
    raise RuntimeError(f"tests/support/parallel.py groups modules that are not there: {_gone}")


def transportable(data: Any) -> Any:
    """`data` (a serialized report: dicts, lists, strings) with every string that UTF-8 cannot
    encode (a lone surrogate) backslash-escaped, as execnet must send them between processes."""
    if isinstance(data, str):
        try:
            data.encode("utf-8")
        except UnicodeEncodeError:
            return data.encode("utf-8", "backslashreplace").decode("utf-8")
        return data
    if isinstance(data, dict):
        return {transportable(key): transportable(value) for key, value in data.items()}
    if isinstance(data, list | tuple):
        return type(data)(transportable(item) for item in data)
    return data


class GroupedScheduling(LoadGroupScheduling):  # type: ignore[misc]  # xdist has no type hints
    """xdist's loadgroup scheduling (whole groups to one worker, every other test on its own), its
    groups also taken from ONE_AT_A_TIME."""

    def _split_scope(self, nodeid: str) -> str:
        group = GROUP_OF.get(nodeid.split("::", 1)[0])
        return f"@{group}" if group else super()._split_scope(nodeid)
