"""`acp-tray login` with a terminal method runs the program it prints, and says what it sets.

The sign-in agent (tests/agents/auth_agent.py, a real subprocess) is configured as `python3 …`, and
its terminal method's `env` sets PATH to a directory whose `python3` is another program (it notes
that it ran, then runs the real one). What the line before the sign-in shows must be what runs: the
program found with the environment the sign-in runs in, and the variables the method sets.
"""

from __future__ import annotations

import shlex
import stat
import sys
from pathlib import Path

from tests.support.agents import AUTH_AGENT
from tests.support.config import write_agent_config
from tests.support.daemons import Daemon, cli, cli_env


def test_the_program_printed_is_the_program_run(daemons: list[Daemon], tmp_path: Path) -> None:
    real = sys.executable
    other = tmp_path / "other-bin"
    other.mkdir()
    ran = tmp_path / "ran"
    impostor = other / "python3"
    impostor.write_text(f'#!/bin/sh\necho "$0" > {shlex.quote(str(ran))}\nexec {shlex.quote(real)} "$@"\n')
    impostor.chmod(impostor.stat().st_mode | stat.S_IXUSR)
    env = {"AUTH_AGENT_AT": "new", "AUTH_AGENT_TOKEN": str(tmp_path / "token"), "AUTH_AGENT_TUI_PATH": str(other)}
    write_agent_config("locked", ["python3", str(AUTH_AGENT)], tmp_path, env)
    daemon = Daemon("run", "--headless", env=cli_env())
    daemons.append(daemon)
    daemon.wait_for_line("locked  SIGN-IN")

    signed = cli("login", "locked", "tui")
    assert signed.returncode == 0, signed.stderr
    said = next(line for line in signed.stdout.splitlines() if line.startswith("Signing in to locked"))
    command, _, sets = said.partition(": ")[2].partition(" (it sets ")
    assert shlex.split(command) == [str(impostor), str(AUTH_AGENT), "--login"], said
    assert ran.read_text().strip() == str(impostor)  # what ran is what was shown
    variables = shlex.split(sets.rstrip(")"))
    assert f"PATH={other}" in variables, said
    assert "AUTH_AGENT_MODE=***" in variables, said  # the method's other variable; its name looks secret
    assert "locked: signed in" in signed.stdout
    assert daemon.stop() == 0
