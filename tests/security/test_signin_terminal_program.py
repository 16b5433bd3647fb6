"""A terminal sign-in method is shown as it runs, and one that cannot run is refused in words.

The sign-in agent (tests/agents/auth_agent.py, a real subprocess) is configured as `python3 …`, and
its terminal method's `env` sets PATH to a directory whose `python3` is another program (it notes
that it ran, then runs the real one). What `acp-tray login`, the sign-in notice and the window show
must be what runs: the program found with the environment the sign-in runs in, and the variables
the method sets. A remote agent's terminal method shows no command (acp-tray never runs it), and a
method declared with a NUL or a control character is unusable, said so, never a traceback.
"""

from __future__ import annotations

import html
import json
import shlex
import stat
import sys
from pathlib import Path
from typing import Any

import pytest

from acp_tray.files import paths
from acp_tray.prefs.names import shell_line
from tests.support.agents import AUTH_AGENT
from tests.support.config import history, write_agent_config, write_config
from tests.support.daemons import DaemonProcess, cli, cli_env
from tests.support.remote_agents import stdio_agent_served
from tests.support.waiting import until
from tests.support.window import window_process


def impostor_python(tmp_path: Path) -> tuple[Path, Path, Path]:
    """A directory holding a `python3` that is not the system's (it writes its own path to a file,
    then runs the real one): (the directory, the program, the file)."""
    other = tmp_path / "other-bin"
    other.mkdir()
    ran = tmp_path / "ran"
    impostor = other / "python3"
    impostor.write_text(f'#!/bin/sh\necho "$0" > {shlex.quote(str(ran))}\nexec {shlex.quote(sys.executable)} "$@"\n')
    impostor.chmod(impostor.stat().st_mode | stat.S_IXUSR)
    return other, impostor, ran


def test_the_program_printed_is_the_program_run(daemons: list[DaemonProcess], tmp_path: Path) -> None:
    other, impostor, ran = impostor_python(tmp_path)
    env = {"AUTH_AGENT_AT": "new", "AUTH_AGENT_TOKEN": str(tmp_path / "token"), "AUTH_AGENT_TUI_PATH": str(other)}
    write_agent_config("locked", ["python3", str(AUTH_AGENT)], tmp_path, env)
    daemon = DaemonProcess("run", "--headless", env=cli_env())
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


def sign_in_notice(agent: str) -> str:
    """The body of the sign-in notice the person got (as the history keeps it)."""
    until(lambda: any(r.get("title") == f"Sign in to {agent}" for r in history()), what="the sign-in notice")
    return str(next(r["description"] for r in history() if r.get("title") == f"Sign in to {agent}"))


def methods_of(agent: str) -> dict[str, dict[str, Any]]:
    listed = cli("agents", "list", "--json")
    assert listed.returncode == 0, listed.stderr
    row = next(r for r in json.loads(listed.stdout) if r["name"] == agent)
    return {m["id"]: m for m in row["sign_in_methods"]}


def test_the_window_and_the_notice_show_the_program_that_runs(daemons: list[DaemonProcess], tmp_path: Path) -> None:
    """Item 9 of the security review: `python3 …` was shown while a click ran the `python3` that the
    method's own PATH finds, its variables unshown. Now every surface shows what the CLI runs."""
    other, impostor, _ = impostor_python(tmp_path)
    # the method's PATH as the agent declares it (AUTH_AGENT_TUI_PATH, a secret-looking name, would be masked
    # wherever its value appears: the daemon remembers configured secrets)
    declared = {"env": {"AUTH_AGENT_MODE": "ok", "PATH": str(other)}}
    env = {"AUTH_AGENT_AT": "new", "AUTH_AGENT_TOKEN": str(tmp_path / "token")}
    env["AUTH_AGENT_TUI_JSON"] = json.dumps(declared)
    write_agent_config("locked", ["python3", str(AUTH_AGENT)], tmp_path, env)
    daemon = DaemonProcess("run", "--headless", env=cli_env())
    daemons.append(daemon)
    daemon.wait_for_line("locked  SIGN-IN")
    runs = shell_line([str(impostor), str(AUTH_AGENT), "--login"])

    body = sign_in_notice("locked")
    line = next(line for line in body.splitlines() if "(tui)" in line)
    assert f"runs `{runs}` (it sets " in line, body
    assert f"PATH={other}" in line and "AUTH_AGENT_MODE=***" in line, line

    tui = methods_of("locked")["tui"]
    assert tui["command"] == [str(impostor), str(AUTH_AGENT), "--login"]
    assert tui["sets"]["PATH"] == str(other) and tui["sets"]["AUTH_AGENT_MODE"] == "***"

    with window_process("agents") as window:
        page = window.request("GET", "/agents")
        assert page.status == 200
        shown = f"<summary>Details</summary><ul><li>Sign in in a terminal runs: {html.escape(runs)} (it sets "
        assert shown in page.body, page.body
        assert html.escape(f"PATH={other}") in page.body and "AUTH_AGENT_MODE=***" in page.body
    assert daemon.stop() == 0


def test_a_remote_agents_terminal_method_shows_no_command(daemons: list[DaemonProcess], tmp_path: Path) -> None:
    """Item 9: for a remote agent the notice listed the agent's own command as "runs `…`", which
    acp-tray never runs (an older `_meta["terminal-auth"]` method, offered whatever the client said)."""
    env = {**cli_env(), "AUTH_AGENT_AT": "new", "AUTH_AGENT_TOKEN": str(tmp_path / "token"),
           "AUTH_AGENT_EXTRA": "legacy-tui"}  # fmt: skip
    with stdio_agent_served([sys.executable, str(AUTH_AGENT)], env) as url:
        write_config(f'[agents.far]\nurl = "{url}"\n')
        daemon = DaemonProcess(
            "run", "--headless", env={k: v for k, v in cli_env().items() if not k.endswith("_proxy")}
        )
        daemons.append(daemon)
        daemon.wait_for_line("far  SIGN-IN")
        body = sign_in_notice("far")
        assert "runs `" not in body and str(AUTH_AGENT) not in body, body
        line = next(line for line in body.splitlines() if "(legacy-tui)" in line)
        assert line.endswith("— sign in where the agent runs"), body
        assert methods_of("far")["legacy-tui"]["command"] == []
        with window_process("agents") as window:
            page = window.request("GET", "/agents")
            assert "runs <code" not in page.body and str(AUTH_AGENT) not in page.body
            assert "Log in from a terminal runs the agent&#39;s command in a terminal; far runs elsewhere" in page.body
        refused = cli("login", "far", "legacy-tui")
        assert refused.returncode == 1 and "sign in where it runs" in refused.stderr, refused.stderr
        assert daemon.stop() == 0


@pytest.mark.parametrize(
    ("declared", "said"),
    [
        ({"args": ["--login", "a\u0000b"]}, "its argument 2 holds a NUL character"),
        ({"env": {"AUTH_AGENT_MODE": "ok\u0000"}}, "the value of its variable AUTH_AGENT_MODE holds a NUL character"),
        ({"env": {"MODE\u001b[2J": "ok"}}, "the name of its variable 'MODE\\x1b[2J' holds a control character"),
    ],
)
def test_a_terminal_method_no_program_can_be_given_is_refused_in_plain_words(
    daemons: list[DaemonProcess], tmp_path: Path, declared: dict[str, Any], said: str
) -> None:
    """Item 10 of the security review: a NUL in a terminal method's argument or env ended `acp-tray
    login` in a traceback; a control character in a variable's name was run as it came."""
    env = {
        "AUTH_AGENT_AT": "new",
        "AUTH_AGENT_TOKEN": str(tmp_path / "token"),
        "AUTH_AGENT_TUI_JSON": json.dumps(declared),
    }
    write_agent_config("locked", [sys.executable, str(AUTH_AGENT)], tmp_path, env)
    daemon = DaemonProcess("run", "--headless", env=cli_env())
    daemons.append(daemon)
    daemon.wait_for_line("locked  SIGN-IN")

    refused = cli("login", "locked", "tui")
    assert refused.returncode == 1, refused.stdout + refused.stderr
    assert "Traceback" not in refused.stdout + refused.stderr
    assert f"Sign in in a terminal cannot be used: {said}" in refused.stderr, refused.stderr
    assert not (tmp_path / "token").exists()  # nothing ran

    tui = methods_of("locked")["tui"]
    assert tui["doable"] is False and said in tui["unusable"] and tui["command"] == []
    assert f"— cannot be used: {said}" in sign_in_notice("locked")
    logged = paths.log_file().read_text(encoding="utf-8")
    assert f"locked offers the sign-in method tui, which cannot be used: {said}" in logged

    signed = cli("login", "locked", "token")  # the agent's other ways still work
    assert signed.returncode == 0 and "locked: signed in with Use a token" in signed.stdout, signed.stderr
    assert daemon.stop() == 0
