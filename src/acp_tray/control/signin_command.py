"""A terminal sign-in method's command as `acp-tray login` runs it here: the program found with the
environment it runs in (the method's `PATH` included), and the line that says so, with every variable
the sign-in sets (secret-looking values masked). What is printed is what runs. Standard library only.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Mapping, Sequence

from acp_tray.logs.redact import MASK, looks_secret, redact
from acp_tray.prefs.names import shell_line


def find_program(program: str, cwd: str, env: Mapping[str, str]) -> str | None:
    """The full path `program` runs as with `env` in `cwd`: a name without a directory is looked up
    in that environment's PATH (not this process's), a relative path is taken from `cwd`."""
    if os.path.dirname(program):
        return shutil.which(os.path.join(cwd, program))
    return shutil.which(program, path=env.get("PATH", os.defpath))


def shown_command(argv: Sequence[str], sets: Mapping[str, str]) -> str:
    """`argv` quoted for pasting, then the variables the sign-in sets, each quoted as one word."""
    values = [f"{name}={MASK if looks_secret(name) else redact(value)}" for name, value in sorted(sets.items())]
    where = f" (it sets {shell_line(values)})" if values else ""
    return shell_line(argv) + where
