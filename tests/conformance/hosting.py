"""One real agent hosted by a headless daemon as a person runs it, for the conformance suite: its
preferences, its processes (found by a marker in their environment), its row in `status` and
what the history says about it.

Every process of an agent's tree is found by the marker (children inherit it), so a process that
left the tree (a new session, parent 1) is still found.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from acp_tray.files import paths
from acp_tray.state.history import read_history
from tests.support.daemons import DaemonProcess, carrying, cli, cli_env
from tests.support.waiting import until

MARKER = "ACP_TRAY_CONFORMANCE"


def host(
    name: str,
    command: list[str],
    cwd: Path,
    env: dict[str, str],
    daemons: list[DaemonProcess],
    protocol: str | int = "auto",
) -> DaemonProcess:
    """The daemon (kept in `daemons`), its control socket up, hosting agent `name` (offered
    `protocol`), which carries the marker `str(cwd)` and `env` in its environment."""
    env = {MARKER: str(cwd), **env}
    config = paths.config_file()
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text(
        f'notifier = "console"\n[agents.{name}]\ncommand = {json.dumps(command)}\ncwd = "{cwd}"\n'
        f"protocol = {json.dumps(protocol)}\n"
        "env = { " + ", ".join(f"{k} = {json.dumps(v)}" for k, v in env.items()) + " }\n",
        encoding="utf-8",
    )
    daemon = DaemonProcess("run", "--headless", env=cli_env())
    daemons.append(daemon)
    daemon.wait_for_line("control: ")
    return daemon


def tree_processes(marker: str) -> list[int]:
    """Live (not zombie) processes whose environment carries `marker`."""
    return carrying((int(e.name) for e in Path("/proc").iterdir() if e.name.isdigit()), f"{MARKER}={marker}")


def status_row(name: str) -> dict[str, Any]:
    result = cli("status", "--json")
    assert result.returncode == 0, result.stderr
    row: dict[str, Any] = next(a for a in json.loads(result.stdout)["agents"] if a["name"] == name)
    return row


def history_titles(name: str) -> list[str]:
    return [r["title"] for r in read_history(paths.history_file()) if isinstance(r, dict) and r.get("agent") == name]


def quit_leaves_nothing(daemon: DaemonProcess, marker: str) -> None:
    """`acp-tray quit`: the daemon ends cleanly and no process of the agent's tree is left."""
    assert cli("quit").returncode == 0
    assert daemon.proc.wait(30) == 0
    assert tree_processes(marker) == []
    err = daemon.stderr_text()
    assert "Traceback" not in err and "Event loop is closed" not in err, err


@dataclass(frozen=True)
class SignInCase:
    name: str
    command: list[str]
    refusal: str  # the agent's own words, in the state's detail
    methods: dict[str, str]  # its methods' ids and kinds, as acp-tray lists them
    terminal: str | None = None  # its terminal login's command line, as shown before it runs (a part of it)
    env: dict[str, str] = field(default_factory=dict)


def hosted(case: SignInCase, tmp_path: Path, daemons: list[DaemonProcess]) -> DaemonProcess:
    """`case`'s agent hosted, in a HOME of its own, until it needs a sign-in."""
    home = tmp_path / "home"
    home.mkdir()
    daemon = host(case.name, case.command, tmp_path, {"HOME": str(home), **case.env}, daemons)
    until(lambda: status_row(case.name)["state"] == "needs sign-in", timeout=READY, what="needs sign-in")
    return daemon


READY = 120  # seconds for an agent to start and be refused (qwen-code takes several on a busy machine)
