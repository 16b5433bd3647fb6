"""Hostile text through every surface but the real notification server (tests/hostile/test_dunst.py).

Each entry of tests/hostile/corpus.py goes, as agent name, title, description, severity, option
name and option id, through: `notification_of` (what every native backend gets), the freedesktop
action keys, plyer's notify-send arguments, the console lines, the tray menu and tooltip, the
history lines (`acp-tray history`), and, from a real hostile agent through an in-process daemon,
the CLI (`acp-tray status`, `approvals`, `sessions`, `prompt`, `history`) as a subprocess.

The bounds checked are those of src/acp_tray/logs/text.py (TITLE_LIMIT 200,
DESCRIPTION_LIMIT 1000, NAME_LIMIT 64, in code points, an ellipsis when cut) and of the surfaces
built on it: a summary is `agent: title ×N`, an action label at most ACTION_LABEL_LIMIT (48), a
menu text at most MENU_TEXT_LIMIT (60) plus its fixed marks. The truncation is by code point:
text.py promises no grapheme awareness, so none is asserted (an emoji sequence may be cut).

The bugs this found are fixed; their tests stay.
"""

from __future__ import annotations

import asyncio
import io
import json
import subprocess
import sys
import warnings
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest

from acp_tray.cli.history import history_line
from acp_tray.events import AgentState, AgentStatus, NoticeMalformed, NoticeReceived, PermissionAsked, PermissionOption
from acp_tray.logs.text import DESCRIPTION_LIMIT, NAME_LIMIT, TITLE_LIMIT, plain_line, plain_text
from acp_tray.notifiers.console import ConsoleNotifier, presentation_line, status_line
from acp_tray.notifiers.content import ACTION_LABEL_LIMIT, MAX_ACTIONS, notification_of
from acp_tray.notifiers.freedesktop import STAND_IN_KEY, wire_actions
from acp_tray.presentation.actions import ApprovalAnswer, parse_action
from acp_tray.presentation.own_notices import own_notice
from acp_tray.presentation.recent import RecentItem
from acp_tray.presentation.router import Presentation
from acp_tray.protocol.notice import Notice, severity_kind
from acp_tray.state.history import HistoryWriter, read_history
from acp_tray.tray.menu import MENU_TEXT_LIMIT, Entry, menu_of
from acp_tray.tray.snapshot import AgentRow, ApprovalRow, TraySnapshot, tooltip_of
from tests.hostile.corpus import (
    AGENT_ROW,
    BIDI_CONTROLS,
    C1,
    CONSOLE_LINE,
    CORPUS,
    COUNT,
    HOSTILE_AGENT,
    MEGABYTE,
    MENU_LABEL,
    NOW,
    OPTION_LABEL,
    RECENT_LABEL,
    SMALL,
    STAMP,
    SUMMARY,
    Hostile,
    unsafe_characters,
)
from tests.support.daemons import cli_env
from tests.support.presentations import make_presentation as presentation
from tests.support.repo import ROOT
from tests.support.waiting import until_async

entries = pytest.mark.parametrize("entry", CORPUS, ids=[e.name for e in CORPUS])


def assert_safe(text: str, where: str, *, limit: int, one_line: bool = True) -> None:
    bad = unsafe_characters(text, one_line=one_line)
    assert not bad, f"{where}: {bad} survived in {text[:120]!r}"
    assert len(text) <= limit, f"{where}: {len(text)} > {limit} code points"


def assert_terminal_safe(output: bytes, where: str) -> None:
    """Bytes a terminal gets: UTF-8, no ESC, no C1 control (8-bit CSI/OSC), no bidi control."""
    text = output.decode("utf-8")  # strict: a lone surrogate must not get this far
    assert "\x1b" not in text, f"{where}: ESC reaches the terminal: {text[:300]!r}"
    assert not C1 & set(text), f"{where}: a C1 control reaches the terminal: {text[:300]!r}"
    assert not BIDI_CONTROLS & set(text), f"{where}: a bidi control reaches the terminal: {text[:300]!r}"


# the sanitiser itself --------------------------------------------------------------------------


@entries
def test_plain_line_and_plain_text_are_safe_bounded_and_idempotent(entry: Hostile) -> None:
    whole = plain_line(entry.text, 10 * MEGABYTE)  # nothing cut
    for limit in (NAME_LIMIT, ACTION_LABEL_LIMIT, MENU_TEXT_LIMIT, TITLE_LIMIT, DESCRIPTION_LIMIT):
        line = plain_line(entry.text, limit)
        assert_safe(line, f"plain_line(…, {limit})", limit=limit)
        assert plain_line(line, limit) == line  # sanitising again (the menu does) changes nothing
        assert line.endswith("…") == (len(whole) > limit) or len(entry.text) > 4 * limit  # cut: it says so
        text = plain_text(entry.text, limit)
        assert_safe(text, f"plain_text(…, {limit})", limit=limit, one_line=False)


def test_truncation_is_by_code_point_as_documented_and_never_splits_a_surrogate_pair() -> None:
    """text.py does not promise grapheme-aware truncation (and does not do it): an emoji ZWJ
    sequence can be cut after a ZWJ. What it does guarantee: the bound, the ellipsis, and text
    that encodes (Python strings hold code points, so no UTF-16 pair can be split)."""
    family = "\U0001f468\u200d\U0001f469\u200d\U0001f467\u200d\U0001f466"  # 7 code points
    for limit in range(2, 30):
        cut = plain_line(family * 10, limit)
        assert len(cut) == limit and cut.endswith("…")
        cut.encode("utf-8")  # strict


# native notifications: what every backend gets ----------------------------------------------------


@entries
def test_notification_of_is_safe_and_bounded_in_every_field(entry: Hostile) -> None:
    text = entry.text
    actions = tuple((f"approval:1:{text}{n}", text) for n in range(MAX_ACTIONS + 2))
    p = presentation(1, text, text, agent=text, description=text, count=COUNT, actions=actions)
    n = notification_of(p)
    assert_safe(n.summary, "summary", limit=SUMMARY)
    assert_safe(n.body, "body", limit=DESCRIPTION_LIMIT, one_line=False)
    assert len(n.actions) == MAX_ACTIONS
    for (action_id, label), (sent_id, _) in zip(n.actions, actions, strict=False):
        assert action_id == sent_id  # ids pass unchanged: they are what the daemon gets back
        assert_safe(label, "action label", limit=ACTION_LABEL_LIMIT)
        assert label  # never an empty button


@entries
def test_freedesktop_action_keys_are_plain_and_labels_sanitised(entry: Hostile) -> None:
    n = notification_of(presentation(1, "t", actions=((f"approval:1:{entry.text}", entry.text), ("plain", "ok"))))
    wire, offered = wire_actions(n.actions)
    assert wire[:2] == ["default", "Open"]
    keys, labels = wire[2::2], wire[3::2]
    for key in keys:
        assert_safe(key, "action key", limit=200)
        assert "[" not in key and "]" not in key  # dunst reads the key back from "[ID,KEY]"
    assert set(offered.values()) == {f"approval:1:{entry.text}", "plain"}
    for label in labels:
        assert_safe(label, "action label", limit=ACTION_LABEL_LIMIT)
    assert all(k == offered[k] or k.startswith(STAND_IN_KEY.format("")) for k in keys)


@entries
def test_plyer_never_hands_notify_send_an_option(entry: Hostile, monkeypatch: pytest.MonkeyPatch) -> None:
    """The argv `PlyerBackend` makes plyer's Linux path run: the title and the message are
    notify-send's first two arguments and must stay positional whatever the agent wrote."""
    from acp_tray.notifiers.plyer_backend import PlyerBackend

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # "The Python dbus package is not installed": the notify-send path
        from plyer import notification as facade
        from plyer.platforms.linux import notification as linux

        implementation = object.__getattribute__(facade, "_ensure_obj")()  # plyer's lazy proxy
    assert isinstance(implementation, linux.NotifySendNotification)
    calls: list[list[str]] = []

    def call(argv: list[str]) -> int:
        calls.append(argv)
        return 0

    monkeypatch.setattr(linux.subprocess, "call", call)
    for agent in (entry.text, "bot"):  # the summary starts with the agent's name; the body with the description
        n = notification_of(presentation(1, entry.text, agent=agent, description=entry.text))
        asyncio.run(PlyerBackend().notify(n))
    for argv in calls:
        assert argv[0] == "notify-send" and argv[3] == "-i"
        for text in argv[1:3]:
            assert not text.startswith("-"), argv[:3]
            assert "'" not in text and "\\" not in text  # a Flatpak GVariant string cannot be ended early
        assert_safe(argv[1], "notify-send title", limit=SUMMARY + 1)
        assert_safe(argv[2], "notify-send message", limit=DESCRIPTION_LIMIT + 1, one_line=False)
    assert len(calls) == 2


# console lines (the headless surface) -------------------------------------------------------------


@entries
def test_console_lines_are_one_safe_bounded_line(entry: Hostile) -> None:
    text = entry.text
    p = presentation(1, text, text, agent=text, description=text, count=COUNT)
    plain = presentation_line(p, color=False)
    assert_safe(plain, "console line", limit=CONSOLE_LINE + len(f"  ×{COUNT}"))
    assert "\x1b" not in plain
    coloured = presentation_line(p, color=True)
    for style in ("\x1b[36m", "\x1b[33m", "\x1b[1;31m", "\x1b[35m", "\x1b[2m", "\x1b[0m"):
        coloured = coloured.replace(style, "")
    assert coloured == plain  # colour adds only our own styles: none of the agent's text is an escape
    for state in AgentState:
        line = status_line(AgentStatus(text, state, text, time=NOW), color=False)
        assert_safe(line, "status line", limit=STAMP + 2 + NAME_LIMIT + 2 + len("connected") + 1 + DESCRIPTION_LIMIT)
    stream = io.StringIO()
    ConsoleNotifier(stream).present(p)
    assert stream.getvalue().count("\n") == 1 and stream.getvalue().endswith("\n")


# the tray ------------------------------------------------------------------------------------------


def _labels(entries: tuple[Entry, ...]) -> Iterator[Entry]:
    for entry in entries:
        yield entry
        yield from _labels(entry.children)


def hostile_snapshot(text: str) -> TraySnapshot:
    options = (
        PermissionOption(text, text, "allow_once"),
        PermissionOption(text + "2", text, "reject_always"),
        PermissionOption(text + "3", text, text),  # an unknown, hostile kind
        PermissionOption(text + "4", "", "allow_always"),  # an empty name
    )
    return TraySnapshot(
        agents=tuple(AgentRow(text, state, text) for state in AgentState),
        recent=tuple(
            RecentItem(g, text, text, severity_kind(text), text, text, COUNT, NOW, unread, "agent")
            for g, unread in ((1, True), (2, False))
        ),
        approvals=(ApprovalRow("1", text, text, options), ApprovalRow("2", text, text, ())),
    )


@entries
def test_menu_labels_are_safe_and_bounded_and_answers_name_the_agents_option(entry: Hostile) -> None:
    from acp_tray.tray.menu import GLYPH

    snapshot = hostile_snapshot(entry.text)
    menu = menu_of(snapshot)
    approvals = next(e for e in menu if e.label.startswith("Needs you"))
    assert approvals.label == "Needs you (2)"
    first, second = approvals.children
    assert_safe(first.label, "approval label", limit=MENU_TEXT_LIMIT)
    assert_safe(second.label, "approval label", limit=MENU_TEXT_LIMIT)
    assert [o.label for o in second.children] == ["No options offered"]
    for option, offered in zip(first.children, snapshot.approvals[0].options, strict=True):
        assert_safe(option.label, "option label", limit=OPTION_LABEL)
        assert option.label.strip()
        assert option.action is not None
        # the daemon's own parse: the id comes back exactly as offered
        assert parse_action(option.action) == ApprovalAnswer("1", offered.option_id)
    assert not first.children[2].label.startswith(("✔", "✖"))  # an unknown kind gets no mark
    recent = next(e for e in menu if e.label.startswith("Recent"))
    for item in recent.children[: len(snapshot.recent)]:
        assert_safe(item.label, "recent label", limit=RECENT_LABEL)
        assert item.label.lstrip("• ")[0] in GLYPH.values()
    agents = next(e for e in menu if e.label == "Agents")
    for row in agents.children:
        assert_safe(row.label, "agent row", limit=AGENT_ROW)
    for item in _labels(menu):
        assert_safe(item.label, "menu label", limit=MENU_LABEL)
    tooltip = tooltip_of(snapshot)
    # no agent text at all
    assert tooltip == f"acp-tray · 2 awaiting approval · 1 unread · 1/{len(AgentState)} agents connected"


# the history and `acp-tray history` -----------------------------------------------------------


@entries
def test_history_lines_are_safe_and_bounded(entry: Hostile, tmp_path: Path) -> None:
    text = entry.text
    writer = HistoryWriter(tmp_path / "history.jsonl", max_bytes=64 * MEGABYTE)
    writer.append(NoticeReceived(text, text, Notice(text, text, text), time=NOW.astimezone()))
    writer.append(NoticeMalformed(text, text, text, text, {"update": {"sessionUpdate": text, "title": text}}))
    writer.close()
    records = list(read_history(tmp_path / "history.jsonl"))
    assert len(records) == 2 and all(isinstance(r, dict) for r in records)
    for record in records:
        assert isinstance(record, dict)
        line = history_line(record, datetime.now().astimezone())
        assert_safe(line, "history line", limit=CONSOLE_LINE + 100)
        assert "\x1b" not in line


def write_hostile_history(path: Path, corpus: tuple[Hostile, ...]) -> None:
    writer = HistoryWriter(path, max_bytes=256 * MEGABYTE)
    for entry in corpus:
        notice = Notice(entry.text, entry.text, entry.text)
        writer.append(NoticeReceived(entry.text, entry.text, notice, time=NOW.astimezone()))
    writer.close()


def test_cli_history_prints_one_safe_line_per_record(tmp_path: Path) -> None:
    from acp_tray.files import paths

    write_hostile_history(paths.history_file(), CORPUS)
    shown = subprocess.run([sys.executable, "-m", "acp_tray", "history"], env=cli_env(), capture_output=True, cwd=ROOT)
    assert shown.returncode == 0, shown.stderr
    assert_terminal_safe(shown.stdout, "acp-tray history")
    lines = shown.stdout.decode().splitlines()
    assert len(lines) == len(CORPUS)
    for line in lines:
        assert_safe(line, "acp-tray history", limit=CONSOLE_LINE)


def test_cli_history_json_is_terminal_safe(tmp_path: Path) -> None:
    from acp_tray.files import paths

    write_hostile_history(paths.history_file(), SMALL)
    shown = subprocess.run(
        [sys.executable, "-m", "acp_tray", "history", "--json"], env=cli_env(), capture_output=True, cwd=ROOT
    )
    assert shown.returncode == 0, shown.stderr
    assert_terminal_safe(shown.stdout, "acp-tray history --json")
    lines = shown.stdout.split(b"\n")  # not splitlines(): U+0085 and U+2028 are line breaks to it, not to JSON
    assert lines.pop() == b""
    # exact, lone surrogates included ("\\ud800" in JSON): today they print as "?"
    assert [json.loads(line)["title"] for line in lines] == [e.text for e in SMALL]


# acp-tray's own notices built from agent text -------------------------------------------------


def test_needs_approval_keeps_its_hint_whatever_the_title() -> None:
    options = (PermissionOption("ok", "Allow", "allow_once"),)
    event = PermissionAsked("evil", "s", "7", "A" * MEGABYTE, options, 300.0)
    own = own_notice(event)
    assert own is not None
    p = presentation(1, own.notice.title, own.notice.severity, description=own.notice.description)
    assert "acp-tray approve 7 · acp-tray deny 7" in notification_of(p).body


# a real hostile agent through the daemon, the control socket and the CLI --------------------------

ESCAPES = "\x1b[31mred\x1b[0m\x1b]0;pwned\x07\x1b]52;c;cm0gLXJmIH4=\x07\x9b2J\u202eexe.txt\u2066"
# the hostile session id as a terminal must show it: every character that may not reach one taken out
SAFE_SESSION = "sess-" + "".join(char for char in ESCAPES if not unsafe_characters(char))


@dataclass
class Run:
    presentations: list[Presentation] = field(default_factory=list)
    snapshots: list[TraySnapshot] = field(default_factory=list)
    console: io.StringIO = field(default_factory=io.StringIO)
    cli: dict[str, subprocess.CompletedProcess[bytes]] = field(default_factory=dict)
    settled: TraySnapshot = field(default_factory=TraySnapshot)  # what the tray showed while all was pending


def run_daemon(base: Path, script: dict[str, Any], commands: dict[str, list[str]]) -> Run:
    """An in-process daemon (as `acp-tray run --headless` builds it, plus a snapshot publisher)
    with one hostile agent, its control socket, and `acp-tray COMMAND` run as subprocesses."""
    from acp_tray.app.compose import assemble, control_ops
    from acp_tray.app.ops import dispatch_table
    from acp_tray.app.publisher import PUBLISH_EVERY
    from acp_tray.control.server import ControlServer
    from acp_tray.prefs.load import read_preferences

    base.mkdir(parents=True)
    dirs = {name: base / name.lower() for name in ("XDG_CONFIG_HOME", "XDG_STATE_HOME", "XDG_RUNTIME_DIR")}
    for path in dirs.values():
        path.mkdir(mode=0o700)
    script_file = base / "script.json"
    script_file.write_text(json.dumps(script), encoding="utf-8")  # JSON escapes: lone surrogates survive
    config = base / "config.toml"
    config.write_text(
        "[rate_limit]\nburst = 1000\n\n[agents.evil]\nprotocol = 1\n"
        f"command = {json.dumps([sys.executable, str(HOSTILE_AGENT)])}\n"
        f"env = {{ HOSTILE_AGENT_SCRIPT = {json.dumps(str(script_file))} }}\n",
        encoding="utf-8",
    )
    env = cli_env(**{name: str(path) for name, path in dirs.items()})
    run = Run()
    console = ConsoleNotifier(run.console)

    async def drive() -> None:
        daemon = assemble(
            read_preferences(config),
            history=HistoryWriter(dirs["XDG_STATE_HOME"] / "acp-tray" / "history.jsonl"),
            surfaces=[console.present, run.presentations.append],
            status=console.status,
            publishers=[run.snapshots.append],
            prefs_path=config,
        )
        control = ControlServer(dispatch_table(control_ops(daemon)))
        await control.start()
        stop = asyncio.Event()
        task = asyncio.create_task(daemon.run(stop))
        try:
            wanted_approvals = len(script.get("permissions", []))
            wanted_notices = len(script.get("updates", []))

            def settled() -> bool:
                notices = [p for p in run.presentations if p.source == "agent"]
                return len(daemon.core.approvals.pending()) == wanted_approvals and len(notices) >= wanted_notices

            await until_async(settled, 30, "the hostile agent's notices and approvals")
            await asyncio.sleep(PUBLISH_EVERY + 0.1)  # snapshots are published at most every PUBLISH_EVERY
            assert run.snapshots[-1] == daemon.core.publisher.snapshot()
            run.settled = run.snapshots[-1]
            for name, argv in commands.items():
                run.cli[name] = await asyncio.to_thread(
                    subprocess.run,
                    [sys.executable, "-m", "acp_tray", *argv],
                    env=env,
                    capture_output=True,
                    cwd=ROOT,
                    timeout=30,
                )
        finally:
            stop.set()
            await task
            await control.aclose()

    with pytest.MonkeyPatch.context() as patch:
        for name, path in dirs.items():
            patch.setenv(name, str(path))
        asyncio.run(drive())
    return run


def escapes_script() -> dict[str, Any]:
    """Agent text everywhere the CLI shows it: notices (the whole small corpus), a session id and
    permission requests with escape sequences, bidi overrides and line breaks, a reply with OSC 52."""
    updates = [
        {"sessionUpdate": "notice", "severity": e.text, "title": f"#{i} {e.text}", "description": e.text}
        for i, e in enumerate(SMALL)
    ]
    options = [
        {"optionId": "allow\x1b[2J", "name": "\x1b[32mAllow\u202e", "kind": "allow_once"},
        {"optionId": "no\n\u2066", "name": "Reject", "kind": "reject_once\x1b[5m"},
    ]
    return {
        "session_id": f"sess-{ESCAPES}",
        "updates": updates,
        "permissions": [
            {"toolCall": {"toolCallId": "t1", "title": f"rm {ESCAPES}\nsecond line"}, "options": options},
            {"title": "v2-style " + ESCAPES, "toolCall": {"toolCallId": "t2"}, "options": options[:1]},
        ],
        "reply": [f"hello {ESCAPES}\n"],
    }


CLI_COMMANDS = {
    "status": ["status"],
    "approvals": ["approvals"],
    "sessions": ["sessions"],
    "history": ["history"],
    "prompt": ["prompt", "evil", "hi"],
}


@pytest.fixture(scope="module")
def escapes_run(tmp_path_factory: pytest.TempPathFactory) -> Run:
    return run_daemon(tmp_path_factory.mktemp("hostile") / "escapes", escapes_script(), CLI_COMMANDS)


def test_daemon_surfaces_with_a_hostile_agent(escapes_run: Run) -> None:
    run = escapes_run
    agent_notices = [p for p in run.presentations if p.source == "agent"]
    assert len(agent_notices) == len(SMALL)
    assert any(p.title == "Needs approval" for p in run.presentations)
    for p in run.presentations:
        n = notification_of(p)
        assert_safe(n.summary, "daemon summary", limit=SUMMARY)
        assert_safe(n.body, "daemon body", limit=DESCRIPTION_LIMIT, one_line=False)
        for _, label in n.actions:
            assert_safe(label, "daemon action label", limit=ACTION_LABEL_LIMIT)
    lines = run.console.getvalue().splitlines()
    assert len(lines) >= len(SMALL)
    assert any("sess-" in line and "connected" in line for line in lines)  # the session id, made safe
    for line in lines:
        assert_safe(line, "console", limit=CONSOLE_LINE + 10)
    latest = run.settled
    assert len(latest.approvals) == 2
    for item in _labels(menu_of(latest)):
        assert_safe(item.label, "menu label", limit=MENU_LABEL)
    assert_safe(tooltip_of(latest), "tooltip", limit=120)


def test_cli_history_from_the_daemon_is_terminal_safe(escapes_run: Run) -> None:
    shown = escapes_run.cli["history"]
    assert shown.returncode == 0, shown.stderr
    assert_terminal_safe(shown.stdout, "acp-tray history")
    assert len(shown.stdout.decode().splitlines()) >= len(SMALL)


def test_cli_approvals_is_terminal_safe(escapes_run: Run) -> None:
    shown = escapes_run.cli["approvals"]
    assert shown.returncode == 0, shown.stderr
    assert_terminal_safe(shown.stdout, "acp-tray approvals")
    assert len(shown.stdout.decode().splitlines()) == 2  # one line per request: no injected lines


def test_cli_status_is_terminal_safe(escapes_run: Run) -> None:
    shown = escapes_run.cli["status"]
    assert shown.returncode == 0, shown.stderr
    assert_terminal_safe(shown.stdout, "acp-tray status")
    rows = [line for line in shown.stdout.decode().splitlines() if line.startswith("  evil ")]
    assert len(rows) == 1 and f"(session {SAFE_SESSION} · ACP 1)" in rows[0], shown.stdout  # shown, not dropped


def test_cli_sessions_is_terminal_safe(escapes_run: Run) -> None:
    shown = escapes_run.cli["sessions"]
    assert shown.returncode == 0, shown.stderr
    assert_terminal_safe(shown.stdout, "acp-tray sessions")
    (row,) = shown.stdout.decode().splitlines()  # one session: no injected lines
    assert row.split()[0] == "evil" and SAFE_SESSION in row.split(), row  # shown, not dropped


def test_cli_prompt_reply_is_terminal_safe(escapes_run: Run) -> None:
    shown = escapes_run.cli["prompt"]
    assert shown.returncode == 0, shown.stderr
    assert b"hello " in shown.stdout
    assert_terminal_safe(shown.stdout, "acp-tray prompt")


@pytest.fixture(scope="module")
def surrogate_run(tmp_path_factory: pytest.TempPathFactory) -> Run:
    script = {  # not in its session id: an agent's id that is not text makes it unusable (test_session_ids_not_text)
        "session_id": "s-1",
        "permissions": [{"toolCall": {"toolCallId": "t", "title": "a\ud800b \udfff"}, "options": []}],
    }
    commands = {"status": ["status"], "approvals": ["approvals"], "sessions": ["sessions"]}
    return run_daemon(tmp_path_factory.mktemp("hostile") / "surrogate", script, commands)


def test_lone_surrogates_reach_the_tray_and_console_as_replacement_characters(surrogate_run: Run) -> None:
    latest = surrogate_run.settled
    labels = [item.label for item in _labels(menu_of(latest))]
    assert "evil: a\ufffdb \ufffd" in labels
    console = surrogate_run.console.getvalue()
    assert "evil wants to: a\ufffdb \ufffd" in console
    console.encode("utf-8")


def test_cli_approvals_survives_a_lone_surrogate(surrogate_run: Run) -> None:
    shown = surrogate_run.cli["approvals"]
    assert shown.returncode == 0, shown.stderr
    assert_terminal_safe(shown.stdout, "acp-tray approvals")


@pytest.fixture(scope="module")
def huge_run(tmp_path_factory: pytest.TempPathFactory) -> Run:
    title = "A" * (MEGABYTE + 100_000)  # an agent line may be 4 MB; a control reply line at most 1 MB
    script = {"permissions": [{"toolCall": {"toolCallId": "t", "title": title}, "options": []}]}
    return run_daemon(
        tmp_path_factory.mktemp("hostile") / "huge", script, {"status": ["status"], "approvals": ["approvals"]}
    )


def test_a_huge_permission_title_is_bounded_in_the_tray(huge_run: Run) -> None:
    latest = huge_run.settled
    for item in _labels(menu_of(latest)):
        assert len(item.label) <= MENU_LABEL


def test_cli_status_and_approvals_survive_a_huge_title(huge_run: Run) -> None:
    for name in ("status", "approvals"):
        shown = huge_run.cli[name]
        assert shown.returncode == 0, (name, shown.stderr)
        for line in shown.stdout.decode().splitlines():
            assert len(line) <= 4 * TITLE_LIMIT
