"""The headless presentation: one safe, readable line per notice."""

from __future__ import annotations

import io
from datetime import UTC, datetime

import pytest

from acp_tray.events import AgentState, AgentStatus, NoticeReceived
from acp_tray.notifiers.console import ConsoleNotifier, format_event
from acp_tray.presentation.text import TITLE_LIMIT, plain_line
from acp_tray.protocol.notice import Notice

T = datetime(2026, 11, 29, 14, 5, 9, tzinfo=UTC)


def line_for(severity: str, title: str, description: str | None = None, agent: str = "claude") -> str:
    return format_event(NoticeReceived(agent, "s", Notice(severity, title, description), T))


@pytest.mark.parametrize(
    ("severity", "label"),
    [("info", "info"), ("warning", "WARNING"), ("error", "ERROR"), ("_acme.x", "_acme.x"), ("critical", "critical")],
)
def test_each_severity_has_a_label_and_unknown_ones_are_shown_as_sent(severity: str, label: str) -> None:
    line = line_for(severity, "Build finished", "All 3 targets")
    assert line.startswith("14:05:09  claude  ")
    assert line.split()[2] == label
    assert line.endswith("Build finished — All 3 targets")


def test_one_line_no_controls_no_bidi_bounded() -> None:
    title = "evil\n\x1b[2Jclear \u202egnp.exe\t" + "x" * 5000
    line = line_for("info", title, "a\r\nb\x00c")
    assert "\n" not in line and "\x1b" not in line and "\u202e" not in line and "\x00" not in line
    assert len(line) < TITLE_LIMIT + 100


def test_lone_surrogates_can_be_printed() -> None:
    stream = io.StringIO()
    ConsoleNotifier(stream).show(NoticeReceived("a", "s", Notice("info", "bad \ud800 surrogate"), T))
    stream.getvalue().encode("utf-8")  # would raise if a lone surrogate survived
    assert "bad \ufffd surrogate" in stream.getvalue()


def test_markup_is_shown_literally() -> None:
    assert "<b>bold</b> & <a href='x'>link</a>" in line_for("info", "<b>bold</b> & <a href='x'>link</a>")


def test_agent_status_line() -> None:
    line = format_event(AgentStatus("demo", AgentState.EXITED, "exit code 3", T))
    assert line == "14:05:09  demo  exited   exit code 3"


@pytest.mark.parametrize(
    ("text", "limit", "expected"),
    [("  padded  ", 20, "padded"), ("abcdef", 4, "abc…"), ("a\u200fb\u2066c", 10, "abc"), ("", 5, "")],
)
def test_plain_line(text: str, limit: int, expected: str) -> None:
    assert plain_line(text, limit) == expected
