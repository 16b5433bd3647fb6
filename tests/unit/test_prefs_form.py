"""`prefs.get` and `prefs.set`, the window's Preferences page's ops, on a real daemon in the test's
loop and a real preferences file: the form's fields typed by the model, every value checked by the
file's model in the file's words, keyed by setting; nothing written while one is wrong or over a
newer file (unless overwriting); only what changes is written, with the file's comments kept, and
applied before the answer, which carries the form to show."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from acp_tray.app.compose import assemble, control_ops
from acp_tray.app.ops.prefs import PrefsOps
from acp_tray.control import api
from acp_tray.prefs.form import FormValue, check_changes, form_values, from_fields
from acp_tray.prefs.load import parse_preferences
from acp_tray.prefs.model import AgentConfig, Preferences
from acp_tray.prefs.template import DEFAULT_FILE
from acp_tray.state.history import HistoryWriter
from tests.support.in_process import Running

NO_AGENTS = DEFAULT_FILE.split("[agents.demo]")[0].replace('notifier = "auto"', 'notifier = "console"')


@pytest.fixture
async def running(tmp_path: Path) -> AsyncIterator[Running]:
    path = tmp_path / "config.toml"
    path.write_text(NO_AGENTS, encoding="utf-8")
    run = Running(tmp_path, path)
    try:
        yield run
    finally:
        await run.close()


def ops(run: Running) -> PrefsOps:
    return control_ops(run.daemon).prefs


def as_fields(values: dict[str, FormValue]) -> dict[str, list[str]]:
    """Values as a browser sends a form's fields: a checkbox its hidden "false" (then "true" when
    ticked), checkboxes those ticked, text as typed."""
    return {
        key: (["false", "true"] if value else ["false"])
        if isinstance(value, bool)
        else (value if isinstance(value, list) else [value])
        for key, value in values.items()
    }


async def test_wrong_values_are_said_by_setting_in_the_files_words_and_nothing_is_written(running: Running) -> None:
    path = running.daemon.core.reloader.path
    assert path is not None
    before = path.read_bytes()
    form = await ops(running).form()
    changes: dict[str, str | bool | list[str]] = {
        "rate_limit.burst": "0",
        "dnd.quiet_hours.end": "25:00",
        "severity.info.timeout": "soon",
        "severity.info.route": "tray",  # right, but not written while others are wrong
        "dnd.quiet_hours.days": ["mon", "someday"],
    }
    reply = await ops(running).change(api.PrefsSetArgs(version=form["version"], fields=as_fields(changes)))
    assert reply["saved"] is False and reply["changed"] == [] and not reply["stale"] and not reply["failed"]
    assert reply["problems"] == {
        "rate_limit.burst": "`burst` in [rate_limit] must be at least 1, not 0",
        "dnd.quiet_hours.end": "`end` in [dnd.quiet_hours]: expected a time of day like \"22:00\", got '25:00'",
        "severity.info.timeout": '`timeout` in [severity.info] must be a whole number, not "soon"',
        "dnd.quiet_hours.days": 'item 2 of `days` in [dnd.quiet_hours] must be one of "mon", "tue", "wed", '
        '"thu", "fri", "sat", "sun", not "someday"',
    }
    assert path.read_bytes() == before
    assert running.daemon.core.router.prefs.severity.info.route == "both"
    assert reply["sent"] == changes  # shown again as sent
    assert reply["form"]["values"]["severity.info.route"] == "both"  # the file's, as it still is


async def test_a_change_writes_only_its_value_keeps_the_comments_and_is_applied_before_the_answer(
    running: Running,
) -> None:
    path = running.daemon.core.reloader.path
    assert path is not None
    form = await ops(running).form()
    assert form["values"]["severity.info.route"] == "both" and form["values"]["dnd.quiet_hours.start"] == "22:00"
    assert form["choices"]["severity.info.route"] == ["notify", "tray", "both", "none"]
    sent = dict(form["values"])
    sent["severity.info.route"] = "tray"
    sent = {key: value for key, value in sent.items() if not key.startswith("agents.")}
    reply = await ops(running).change(api.PrefsSetArgs(version=form["version"], fields=as_fields(sent)))
    assert (reply["saved"], reply["problems"], reply["changed"]) == (True, {}, ["severity.info.route"])
    assert path.read_text(encoding="utf-8") == NO_AGENTS.replace(
        '[severity.info]\nroute = "both"', '[severity.info]\nroute = "tray"'
    )
    assert running.daemon.core.router.prefs.severity.info.route == "tray"  # applied, not waiting for the watcher
    assert reply["form"] == await ops(running).form()  # the form after the save: the file's new values
    assert reply["form"]["values"]["severity.info.route"] == "tray" and reply["form"]["version"] != form["version"]


async def test_a_change_made_from_an_older_file_is_refused_as_such_unless_it_overwrites(running: Running) -> None:
    path = running.daemon.core.reloader.path
    assert path is not None
    old = (await ops(running).form())["version"]
    path.write_text(NO_AGENTS.replace("burst = 5", "burst = 6"), encoding="utf-8")  # an editor's save
    edited = path.read_bytes()
    sent = {"rate_limit.burst": ["8"]}
    reply = await ops(running).change(api.PrefsSetArgs(version=old, fields=sent))
    assert (reply["saved"], reply["stale"], reply["changed"]) == (False, True, [])
    assert reply["form"]["values"]["rate_limit.burst"] == "6" and reply["sent"] == {"rate_limit.burst": "8"}
    assert path.read_bytes() == edited
    reply = await ops(running).change(api.PrefsSetArgs(version=old, fields=sent, overwrite=True))
    assert (reply["saved"], reply["changed"]) == (True, ["rate_limit.burst"])
    assert "burst = 8" in path.read_text(encoding="utf-8") and running.daemon.core.router.prefs.rate_limit.burst == 8


async def test_without_a_file_a_save_says_so_in_words(tmp_path: Path) -> None:
    daemon = assemble(
        Preferences(), history=HistoryWriter(tmp_path / "history.jsonl"), surfaces=[], status=lambda event: None
    )
    reply = await control_ops(daemon).prefs.change(api.PrefsSetArgs(fields={"rate_limit.burst": ["8"]}))
    assert (
        reply["saved"] is False and reply["form"]["path"] is None and reply["form"]["values"]["rate_limit.burst"] == "5"
    )
    assert reply["failed"] == "acp-tray runs on its built-in settings: there is no preferences file to change"


def test_a_forms_fields_are_typed_as_the_settings_are() -> None:
    values = form_values(parse_preferences(NO_AGENTS, Path("config.toml")))
    fields = {
        "dnd.enabled": ["false", "true"],  # a checkbox: its hidden "false", then "true" when ticked
        "dnd.quiet_hours.enabled": ["false"],
        "dnd.quiet_hours.days": ["mon", "", "tue"],  # checkboxes: those ticked
        "rate_limit.burst": [" 7 "],  # text: as typed (the model reads it)
        "version": ["abc"],  # not a setting: left out
    }
    assert from_fields(fields, values) == {
        "dnd.enabled": True,
        "dnd.quiet_hours.enabled": False,
        "dnd.quiet_hours.days": ["mon", "tue"],
        "rate_limit.burst": " 7 ",
    }


def test_settings_that_are_not_or_are_tables_are_refused_by_name() -> None:
    source = Path("config.toml")
    checked = check_changes(NO_AGENTS, source, {"severity.info.rout": "tray", "dnd.quiet_hours": "x"}, {})
    assert checked.problems == {
        "severity.info.rout": "`rout` in [severity.info] is not a setting",
        "dnd.quiet_hours": "`quiet_hours` in [dnd] is a table: change it in the file itself",
    }


def test_form_text_becomes_the_settings_type_and_empty_leaves_out_what_may_be_left_out() -> None:
    text = NO_AGENTS + '[agents.bot]\ncommand = ["acp-tray", "demo-agent"]\nprotocol = 1\ncwd = "/tmp"\n'
    changes: dict[str, str | bool | list[str]] = {
        "agents.bot.protocol": "2",
        "agents.bot.cwd": "",
        "agents.bot.mute": True,
        "coalesce.window": "12.5",
        "rate_limit.per": "10",  # as the file says it already: not written
    }
    before = form_values(parse_preferences(text, Path("config.toml")))
    checked = check_changes(text, Path("config.toml"), changes, before)
    assert checked.problems == {}
    assert checked.writes == {
        ("agents", "bot", "protocol"): 2,
        ("agents", "bot", "cwd"): None,
        ("agents", "bot", "mute"): True,
        ("coalesce", "window"): 12.5,
    }


def test_an_agents_environment_and_headers_are_given_by_name_only() -> None:
    prefs = Preferences(
        agents={
            "far": AgentConfig(url="wss://h/acp", headers={"Authorization": "Bearer sk-very-secret"}),
            "near": AgentConfig(command=["x"], env={"API_KEY": "sk-also-secret"}),
        }
    )
    values = form_values(prefs)
    assert values["agents.far.headers"] == ["Authorization"] and values["agents.near.env"] == ["API_KEY"]
    assert "secret" not in repr(values)
