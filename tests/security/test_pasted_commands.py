"""Commands acp-tray prints for pasting run what they say, and nothing an agent chose.

A real agent (tests/agents/auth_agent.py) offers sign-in methods whose ids carry shell syntax
(`$(…)`, backticks, `;`, `|`, `&&`, a line break, quotes). Every command-looking text of every
surface is collected: the notices (history file, `history`, `history --json`), the daemon's console,
`status`, `agents list` (text and --json), `doctor`, and the hints of `prompt` and `login`. Each is
pasted into a real `sh` with `acp-tray` a stand-in on PATH that records its arguments: no pasted
command may run anything else (a marker file would appear), each must run the stand-in, and a
method id must arrive as one word. The README's examples must be commands acp-tray takes.
"""

from __future__ import annotations

import json
import re
import shlex
import stat
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from acp_tray.cli import build_parser
from acp_tray.files import paths
from tests.support.agents import AUTH_AGENT
from tests.support.config import write_agent_config
from tests.support.daemons import DaemonProcess, cli, cli_env
from tests.support.repo import ROOT
from tests.support.waiting import until

# "`acp-tray …`", or "…: acp-tray …" to the end of its line (the form a sign-in notice used)
COMMAND_START = re.compile(r"`acp-tray |(?<=: )acp-tray ")
UNDELIMITED = re.compile(r"acp-tray (?:login|logout|agents|approve|deny|prompt)\b")


def hostile_suffix(marker: Path) -> str:
    touch = f"touch {marker}"
    return f"$({touch})`{touch}`;{touch}|{touch}&&{touch}\n$({touch})'\"{{x}}"


def pasted_commands(text: str) -> list[str]:
    """Each command in `text` as a person would copy it: from "`acp-tray" to the backtick that
    closes it outside any quote (as sh reads quotes), or from ": acp-tray" to the end of the line."""
    found = []
    for start in COMMAND_START.finditer(text):
        begin, fenced = start.start(), text[start.start()] == "`"
        i, quote = begin + 1 if fenced else begin, ""
        while i < len(text):
            c = text[i]
            if quote == "'":
                quote = "" if c == "'" else quote
            elif quote == '"':
                i += c == "\\"
                quote = "" if c == '"' else quote
            elif c == "\\":
                i += 1
            elif c in "'\"":
                quote = c
            elif (c == "`" and fenced) or (c == "\n" and not fenced):
                break
            i += 1
        found.append(text[begin + 1 if fenced else begin : i])
    return found


def takes(argv: list[str]) -> bool:
    """Whether acp-tray's command line takes `argv` (placeholders such as METHOD are words too)."""
    try:
        build_parser().parse_args(argv)
    except SystemExit:
        return False
    return True


def strings_in(value: Any) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for item in value.values():
            yield from strings_in(item)
    elif isinstance(value, list):
        for item in value:
            yield from strings_in(item)


class Paste:
    """`sh -c COMMAND` with a stand-in `acp-tray` first on PATH that records its arguments."""

    def __init__(self, root: Path) -> None:
        self.bin = root / "bin"
        self.bin.mkdir(parents=True)
        self.record = root / "argv"
        standin = self.bin / "acp-tray"
        standin.write_text('#!/bin/sh\nfor a; do printf "%s\\0" "$a"; done > "$RECORD"\n', encoding="utf-8")
        standin.chmod(standin.stat().st_mode | stat.S_IXUSR)
        self.cwd = root / "cwd"
        self.cwd.mkdir()

    def run(self, command: str) -> list[str]:
        self.record.unlink(missing_ok=True)
        env = {"PATH": f"{self.bin}:/usr/bin:/bin", "RECORD": str(self.record), "HOME": str(self.cwd)}
        done = subprocess.run(["sh", "-c", command], env=env, cwd=self.cwd, capture_output=True, text=True, timeout=10)
        assert done.returncode == 0 and self.record.exists(), f"pasting {command!r}: {done.stderr}"
        return self.record.read_bytes().decode().split("\0")[:-1]


def write_config(tmp_path: Path, suffix: str) -> None:
    env = {
        "AUTH_AGENT_AT": "new",
        "AUTH_AGENT_TOKEN": str(tmp_path / "token"),
        "AUTH_AGENT_OFFER": "token,key,sso",  # one method acp-tray can do: the notice names it
        "AUTH_AGENT_ID_SUFFIX": suffix,
    }
    write_agent_config("hostile", [sys.executable, str(AUTH_AGENT)], tmp_path, env)


def test_every_printed_command_pastes_as_the_command_it_says(daemons: list[DaemonProcess], tmp_path: Path) -> None:
    marker = tmp_path / "pasted-and-ran"
    suffix = hostile_suffix(marker)
    write_config(tmp_path, suffix)
    daemon = DaemonProcess("run", "--headless", env=cli_env())
    daemons.append(daemon)
    daemon.wait_for_line("hostile  SIGN-IN")
    history = paths.history_file()
    until(lambda: history.exists() and "Sign in to hostile" in history.read_text(), what="the sign-in notice")

    surfaces: dict[str, list[str]] = {
        "history file": [s for line in history.read_text().splitlines() for s in strings_in(json.loads(line))],
        "history --json": list(strings_in(json.loads(cli("history", "--json").stdout))),
        "status --json": list(strings_in(json.loads(cli("status", "--json").stdout))),
        "agents list --json": list(strings_in(json.loads(cli("agents", "list", "--json").stdout))),
    }
    for args in (
        ["history"],
        ["status"],
        ["agents", "list"],
        ["doctor"],
        ["prompt", "hostile", "hello"],  # waits for a sign-in: says how
        ["login", "hostile", "key" + suffix],  # env_var: set the secret, then log in
        ["login", "hostile", "sso" + suffix],  # a kind acp-tray cannot do
        ["login", "hostile", "nope"],  # lists the methods
    ):
        done = cli(*args)
        surfaces[" ".join(args)[:40]] = [done.stdout, done.stderr]
    assert daemon.stop() == 0
    surfaces["console"] = ["\n".join(daemon.seen)]

    paste = Paste(tmp_path / "paste")
    ran: list[tuple[str, list[str]]] = []
    for surface, texts in surfaces.items():
        for text in texts:
            commands = pasted_commands(text)
            rest = text
            for command in commands:
                rest = rest.replace(command, "")
                argv = paste.run(command)
                assert not marker.exists(), f"{surface}: pasting {command!r} ran a command the agent chose"
                assert takes(argv), f"{surface}: {command!r} pastes as {argv!r}, not a command acp-tray takes"
                ran.append((surface, argv))
            assert not UNDELIMITED.search(rest), f"{surface}: a command that cannot be told from its text: {rest!r}"

    first_line = suffix.split("\n")[0]  # one-line surfaces show the line break as a space
    hostile = [(s, argv) for s, argv in ran if any(first_line in word for word in argv)]
    for surface, argv in hostile:  # the method id is one word, in its place
        assert argv[:2] in (["login", "hostile"], ["agents", "secret"]), (surface, argv)
        assert len(argv) == 3 and argv[2].startswith(("token$(", "key$(")), (surface, argv)
    where = {s for s, argv in hostile if argv[2].startswith("token")}
    assert {"history file", "history --json", "history"} <= where  # the notice's "run `acp-tray login …`"
    assert any(s.startswith("login hostile key") for s, _ in hostile)  # "…, then `acp-tray login hostile 'key…'`"
    assert ["agents", "restart", "hostile"] in [argv for s, argv in ran if s.startswith("login hostile sso")]


@pytest.mark.parametrize(
    ("word", "shown"),
    [
        ("token", "token"),
        ("C:\\Program Files\\x", '"C:\\Program Files\\x"'),
        ("sso&calc", '"sso&calc"'),
        ("a;b|c^d(e)<f>g", '"a;b|c^d(e)<f>g"'),
        ("@splat", '"@splat"'),
        ("a,b", '"a,b"'),
        ("", '""'),
        ("%PATH%", None),
        ("$(calc)", None),
        ("`calc`", None),
        ('x" & calc & "', None),
        ("x\ny", None),
        ("\u201cx\u201d", None),
    ],
)
def test_a_windows_word_is_literal_to_cmd_and_powershell_or_not_printed(word: str, shown: str | None) -> None:
    """Pure: cmd.exe runs `a&calc` as two commands (subprocess.list2cmdline leaves it bare), and
    PowerShell expands `$(…)` inside double quotes; neither may happen to a pasted word. A word
    neither shell takes literally is shown as a stand-in (None here)."""
    from acp_tray.prefs.names import WINDOWS_UNSAFE_WORD, shell_line

    shown = f'"{WINDOWS_UNSAFE_WORD}"' if shown is None else shown
    assert shell_line(["acp-tray", "login", word], windows=True) == f"acp-tray login {shown}"


def readme_examples() -> list[str]:
    """The README's command examples: `$ acp-tray …` lines and the lines of ```sh blocks."""
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    found = []
    for lang, block in re.findall(r"```(\w*)\n(.*?)```", text, flags=re.S):
        for line in block.splitlines():
            line = line.removeprefix("$ ") if line.startswith("$ acp-tray ") else line if lang == "sh" else ""
            if line.startswith("acp-tray "):
                found.append(line)
    return found


def test_the_readmes_examples_are_commands_acp_tray_takes() -> None:
    examples = readme_examples()
    assert len(examples) >= 5, examples
    for example in examples:
        argv = shlex.split(example, comments=True)
        assert argv[0] == "acp-tray" and takes(argv[1:]), f"the README's {example!r} is not a command acp-tray takes"
