"""Loading the preferences file: defaults, agents, and errors that point at file:line."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from acp_tray.daemon import spec_of
from acp_tray.prefs.load import PreferencesError, load_preferences, parse_preferences
from acp_tray.prefs.model import DEMO_AGENT_NAME


def test_first_run_writes_the_default_file_with_the_demo_agent(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    loaded = load_preferences(path, explicit=False)
    assert loaded.source == path and loaded.created
    assert list(loaded.prefs.agents) == [DEMO_AGENT_NAME]
    assert spec_of(loaded.prefs.agents[DEMO_AGENT_NAME]).command == [sys.executable, "-m", "acp_tray", "demo-agent"]


def test_agents_with_cwd_and_env(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    path.write_text(
        '# my agents\n[agents.claude]\ncommand = ["claude-code-acp", "--verbose"]\ncwd = "~/src/app"\n'
        'env = { ANTHROPIC_LOG = "debug" }\n\n[agents.gemini]\ncommand = ["gemini", "--experimental-acp"]\n',
        encoding="utf-8",
    )
    prefs = load_preferences(path, explicit=True).prefs
    assert list(prefs.agents) == ["claude", "gemini"]
    claude = spec_of(prefs.agents["claude"])
    assert claude.command == ["claude-code-acp", "--verbose"]
    assert claude.cwd == Path.home() / "src" / "app"
    assert claude.env == {"ANTHROPIC_LOG": "debug"}
    assert spec_of(prefs.agents["gemini"]).cwd == Path.home()


def test_empty_file_means_no_agents(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    path.write_text("# nothing yet\n", encoding="utf-8")
    assert load_preferences(path, explicit=False).prefs.agents == {}


@pytest.mark.parametrize(
    ("text", "where", "reason"),
    [
        (
            '[agents.a]\ncommand = ["x"]\nenv = { A = 1 }\n',
            "f.toml:3",
            "agents.a.env.A: Input should be a valid string",
        ),
        ('[agents.a]\ncommand = [""]\n', "f.toml:2", "the program (first item) must not be empty"),
        ('[agent.a]\ncommand = ["x"]\n', "f.toml:1", "agent: Extra inputs are not permitted"),
        ('[agents.a]\ncommand = ["x"\n', "f.toml:", "TOML syntax error"),
        ("[agents.a]\ncwd = '/tmp'\n", "f.toml:1", "agents.a: give either `command` (a local agent) or `url`"),
        ("[agents.a]\ncommand = ['x']\nurl = 'ws://h'\n", "f.toml:1", "agents.a: give either `command`"),
        ("\n[agents.a]\nurl = 'http://h'\n", "f.toml:3", "agents.a.url: expected a WebSocket URL"),
        ("[agents.a]\ncommand = ['x']\npermission = 'yes'\n", "f.toml:3", "agents.a.permission: Input should be"),
    ],
)
def test_errors_name_file_line_and_reason(text: str, where: str, reason: str) -> None:
    with pytest.raises(PreferencesError) as info:
        parse_preferences(text, Path("f.toml"))
    message = str(info.value)
    assert message.startswith(where) and reason in message


def test_unreadable_file(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    path.write_bytes(b"\xff\xfe\x00garbage")
    with pytest.raises(PreferencesError, match="cannot read"):
        load_preferences(path, explicit=True)


def test_a_partial_severity_table_keeps_that_severitys_other_defaults() -> None:
    prefs = parse_preferences('[severity.info]\nroute = "tray"\n[severity.error]\ntimeout = 9\n', Path("f.toml"))
    assert (prefs.severity.info.route, prefs.severity.info.timeout) == ("tray", 5)
    assert (prefs.severity.error.route, prefs.severity.error.timeout) == ("both", 9)
    assert prefs.severity.warning.timeout == 0 and prefs.severity.other.timeout == 10
