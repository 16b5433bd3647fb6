"""Items 6 and 7 of the security review, against a real daemon: a symlinked preferences file
stays a link and its target stays watched; an emptied or half-written file is never applied,
and agents whose settings did not change keep running through a reload."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

from acp_tray.files import paths
from tests.support.daemons import DaemonProcess, cli
from tests.support.waiting import until


def replace_atomically(path: Path, text: str) -> None:
    """Save as editors do: a sibling file renamed over `path`."""
    temporary = path.with_name(f".{path.name}.new")
    temporary.write_text(text, encoding="utf-8")
    os.replace(temporary, path)


def dnd() -> str:
    result = cli("status", "--json")
    return str(json.loads(result.stdout)["dnd"]) if result.returncode == 0 else ""


def test_a_symlinked_preferences_file_stays_a_link_and_its_target_stays_watched(
    isolated_dirs: Path, daemons: list[DaemonProcess]
) -> None:
    dotfiles = isolated_dirs / "dotfiles"
    dotfiles.mkdir()
    target = dotfiles / "acp-tray.toml"
    target.write_text('notifier = "console"\n# mine\n')
    target.chmod(0o640)
    link = paths.config_file()
    link.parent.mkdir(parents=True)
    link.symlink_to(target)
    daemon = DaemonProcess("run", "--headless")
    daemons.append(daemon)
    daemon.wait_for_line("control:")
    assert cli("dnd", "on").returncode == 0
    assert link.is_symlink() and link.resolve() == target
    assert "enabled = true" in target.read_text() and "# mine" in target.read_text()
    assert (target.stat().st_mode & 0o777) == 0o640
    until(lambda: dnd().startswith("on"), what="DND on in the daemon")
    replace_atomically(target, 'notifier = "console"\n[dnd]\nenabled = false\n')  # edited in the dotfiles repo
    until(lambda: dnd() == "off", what="the daemon to see the target's edit")
    assert daemon.stop() == 0


def _log() -> str:
    path = paths.log_file()
    return path.read_text(errors="replace") if path.exists() else ""


def test_an_emptied_or_half_written_file_is_not_applied(isolated_dirs: Path, daemons: list[DaemonProcess]) -> None:
    config = paths.config_file()
    config.parent.mkdir(parents=True)
    agents = '[agents.demo]\ncommand = ["acp-tray", "demo-agent"]\n'
    config.write_text('notifier = "console"\n' + agents)
    daemon = DaemonProcess("run", "--headless")
    daemons.append(daemon)
    daemon.wait_for_line("connected")
    (agent,) = daemon.children()
    config.write_text("")  # `: > config.toml`
    until(lambda: "the file is empty" in _log(), what="the empty file reported")
    config.write_text("")  # emptied again: said once is enough
    time.sleep(1.5)
    assert _log().count("the file is empty") == 1
    assert daemon.children() == [agent], "an empty file stops no agent"
    # a save in two pieces: the first half alone has no [agents] table
    with config.open("w") as handle:
        handle.write('notifier = "console"\n[dnd]\nenabled = true\n')
        handle.flush()
        time.sleep(0.2)
        handle.write(agents)
    until(lambda: dnd().startswith("on"), what="the complete file applied")
    assert daemon.children() == [agent], "an agent whose settings did not change keeps running"
    assert daemon.stop() == 0
    assert sum("demo  connected" in line for line in daemon.seen) == 1


DEEP = ("x = " + "[" * 5000 + "]" * 5000, "y = " + "{a = " * 5000 + "1" + "}" * 5000)


def test_a_file_nested_thousands_deep_is_one_line_everywhere_and_never_applied(
    isolated_dirs: Path, daemons: list[DaemonProcess]
) -> None:
    """Arrays or inline tables 5000 deep exhausted the TOML parser's recursion: a traceback at
    `run`, `prefs show`, `prefs validate`, `doctor` and `dnd`. Now each says file:line and why; a
    running daemon keeps its last good settings; the file is left exactly as it was."""
    config = paths.config_file()
    config.parent.mkdir(parents=True)
    good = 'notifier = "console"\n[dnd]\nenabled = true\n'
    config.write_text(good)
    daemon = DaemonProcess("run", "--headless")
    daemons.append(daemon)
    daemon.wait_for_line("control:")
    until(lambda: dnd().startswith("on"), what="DND on")
    for number, deep in enumerate(DEEP):
        text = f'notifier = "console"\n# line 2\n{deep}\n'
        config.write_text(text)
        said = f"{config}:3: arrays or tables are nested more than 100 deep; acp-tray does not read such a file"

        def reported(said: str = said) -> bool:
            return said in "\n".join(daemon.err_lines)

        until(reported, what="the reload's error")
        assert dnd().startswith("on"), "the last good settings stay in force"
        for command in (["prefs", "validate"], ["prefs", "show"], ["doctor"], ["dnd", "off"]):
            done = cli(*command)
            output = done.stdout + done.stderr
            assert done.returncode != 0, (command, output)
            assert f"{config}:3:" in output and "nested" in output, (command, output)
            assert "Traceback" not in output and "RecursionError" not in output, (command, output)
        assert config.read_text() == text, "never rewritten"
        assert daemon.proc.poll() is None, f"the daemon is still running after deep file {number}"
    assert daemon.stop() == 0
    assert "Traceback" not in daemon.stderr_text()
    config.write_text(f'notifier = "console"\n{DEEP[0]}\n')
    start = cli("run", "--headless", timeout=30)
    assert start.returncode != 0 and f"{config}:2:" in start.stderr and "Traceback" not in start.stderr, start
