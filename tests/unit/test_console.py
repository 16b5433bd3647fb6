"""The headless presentation: one safe, readable line per notice."""

from __future__ import annotations

import io
from datetime import UTC, datetime

import pytest

from acp_tray.events import AgentState, AgentStatus
from acp_tray.logs.text import TITLE_LIMIT, plain_line
from acp_tray.notifiers.console import ConsoleNotifier, notice_line, presentation_line, status_line
from acp_tray.presentation.router import Presentation
from acp_tray.protocol.notice import severity_kind
from tests.support.presentations import make_presentation

T = datetime(2026, 11, 29, 14, 5, 9, tzinfo=UTC)


def line_for(severity: str, title: str, description: str | None = None, agent: str = "claude") -> str:
    return notice_line(f"{T:%H:%M:%S}", agent, severity, severity_kind(severity), title, description)


def presentation(title: str, *, notify: bool = True, count: int = 1) -> Presentation:
    return make_presentation(1, title, agent="a", notify=notify, count=count, time=T)


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
    ConsoleNotifier(stream).present(presentation("bad \ud800 surrogate"))
    stream.getvalue().encode("utf-8")  # would raise if a lone surrogate survived
    assert "bad \ufffd surrogate" in stream.getvalue()


def test_markup_is_shown_literally() -> None:
    assert "<b>bold</b> & <a href='x'>link</a>" in line_for("info", "<b>bold</b> & <a href='x'>link</a>")


def test_agent_status_line() -> None:
    line = status_line(AgentStatus("demo", AgentState.EXITED, "exit code 3", T))
    assert line == "14:05:09  demo  exited   exit code 3"


@pytest.mark.parametrize(
    ("text", "limit", "expected"),
    [("  padded  ", 20, "padded"), ("abcdef", 4, "abc…"), ("a\u200fb\u2066c", 10, "abc"), ("", 5, "")],
)
def test_plain_line(text: str, limit: int, expected: str) -> None:
    assert plain_line(text, limit) == expected


def test_console_prints_only_what_a_native_notification_would_show() -> None:
    stream = io.StringIO()
    console = ConsoleNotifier(stream)
    console.present(presentation("tray only", notify=False))
    console.present(presentation("popup", count=3))
    assert stream.getvalue().splitlines() == [presentation_line(presentation("popup", count=3))]
    assert stream.getvalue().rstrip().endswith("popup  ×3")
