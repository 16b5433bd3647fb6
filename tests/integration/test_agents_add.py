"""`acp-tray agents add` as the README writes it: `NAME --url URL` and `--url URL NAME` both add a
remote agent; `NAME -- COMMAND...` keeps the command whole (a `--` inside it too); a command that
starts with `-` is refused instead of being saved as `command = ["--url", ...]`."""

from __future__ import annotations

import sys
import tomllib
from pathlib import Path

from tests.faults.faultkit import agent_table
from tests.support.agents import SESSION_AGENT
from tests.support.config import write_config
from tests.support.daemons import DaemonProcess, cli, start


def agents(config: Path) -> dict[str, dict[str, object]]:
    data = tomllib.loads(config.read_text(encoding="utf-8"))
    return dict(data["agents"])


def test_add_takes_the_url_in_either_order_and_refuses_an_option_as_command(
    daemons: list[DaemonProcess], tmp_path: Path
) -> None:
    config = write_config(agent_table("sa", tmp_path / "sa.log"))
    start(daemons, "sa", verbose=True)
    for name, args in (
        ("after", ["after", "--url", "ws://127.0.0.1:9/a"]),
        ("before", ["--url", "ws://127.0.0.1:9/b", "before"]),
    ):
        added = cli("agents", "add", *args)
        assert added.returncode == 0, added.stderr
        assert agents(config)[name] == {"url": f"ws://127.0.0.1:9/{name[0]}"}, config.read_text()

    kept = cli("agents", "add", "kept", "--", sys.executable, str(SESSION_AGENT), "--", "-x")
    assert kept.returncode == 0, kept.stderr
    assert agents(config)["kept"]["command"] == [sys.executable, str(SESSION_AGENT), "--", "-x"]

    before = config.read_text()
    for args in (["bad", "--", "-y", "npx"], ["bad", "-v"]):
        refused = cli("agents", "add", *args)
        assert refused.returncode == 2 and "cannot start with" in refused.stderr, refused
    assert config.read_text() == before  # nothing saved


def test_a_program_given_by_a_relative_path_is_found_where_it_was_typed(
    daemons: list[DaemonProcess], tmp_path: Path
) -> None:
    """`cd ~/work/agent && acp-tray agents add mine -- ./bin/agent --flag`: the program is saved as
    the path the shell would have run (the agent itself runs in its own working directory, the
    home directory by default), and it starts and connects; arguments are left as written."""
    import subprocess

    from tests.support.daemons import cli_env
    from tests.support.repo import ROOT

    config = write_config(agent_table("sa", tmp_path / "sa.log"))
    start(daemons, "sa", verbose=True)
    project = tmp_path / "project"
    (project / "bin").mkdir(parents=True)
    program = project / "bin" / "agent"
    program.write_text(f"#!/bin/sh\nexec {sys.executable} -m acp_tray demo-agent\n", encoding="utf-8")
    program.chmod(0o755)
    added = subprocess.run(
        [sys.executable, "-m", "acp_tray", "agents", "add", "mine", "--", "./bin/agent", "./relative-arg"],
        cwd=project,
        env=cli_env(PYTHONPATH=str(ROOT / "src")),
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert added.returncode == 0, added.stderr
    assert agents(config)["mine"]["command"] == [str(program), "./relative-arg"]
    waited = cli("prompt", "mine", "hello")  # waits for it to connect: it started from the saved path
    assert waited.returncode == 0 and "Hello from the acp-tray demo agent" in waited.stdout, waited.stderr
