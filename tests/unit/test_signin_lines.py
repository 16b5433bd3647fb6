"""The lines an agent writes while its own sign-in waits (agents/signin_lines.py), pure: which
addresses become links, and that the text around them is cleaned, redacted and bounded."""

from __future__ import annotations

import pytest

from acp_tray.agents.signin_lines import MAX_LINES, MAX_TEXT, SignInLines, code_problem, found_url
from acp_tray.events import SignInLink
from acp_tray.prefs.urls import openable


@pytest.mark.parametrize(
    ("url", "link"),
    [
        ("https://accounts.google.com/o/oauth2/v2/auth?x=1", True),
        ("http://127.0.0.1:8085/cb", True),
        ("http://localhost/cb", True),
        ("http://[::1]:9/cb", True),
        ("http://evil.example.com/phish", False),
        ("http://127.0.0.1.evil.example.com/", False),
        ("javascript:alert(1)", False),
        ("file:///etc/passwd", False),
        ("https://", False),
    ],
)
def test_only_https_or_loopback_http_is_a_link(url: str, link: bool) -> None:
    assert openable(url) is link


def test_the_address_ends_where_the_sentence_does() -> None:
    assert found_url("Otherwise navigate to: https://a.example/x?y=1.") == "https://a.example/x?y=1"
    assert found_url("(see https://a.example/p), then") == "https://a.example/p"
    assert found_url("open http://evil.example.com or https://ok.example/") == "https://ok.example/"
    assert found_url("no address here") is None


def heard(*raw: bytes, stdout: bool = False) -> SignInLines:
    lines = SignInLines()
    lines.start()
    for line in raw:
        lines.heard(line, stdout)
    return lines


def test_lines_are_kept_only_while_a_sign_in_waits() -> None:
    lines = SignInLines()
    lines.heard(b"https://before.example/", False)
    assert lines.lines == ()
    lines.start()
    lines.heard(b"https://during.example/", False)
    lines.stop()
    assert lines.lines == () and not lines.reads_code


def test_terminal_sequences_are_stripped_secrets_masked_and_text_bounded() -> None:
    raw = b"\x1b[?1049h\x1b[2JPlease visit \x1b[1mhttps://a.example/auth?state=s&access_token=abc123XYZ\x1b[0m now"
    lines = heard(raw, b"x" * 1000 + b" https://b.example/", b"y " * 5000 + b"https://c.example/", stdout=True)
    assert lines.lines[0] == SignInLink("Please visit now", "https://a.example/auth?state=s&access_token=***", True)
    assert len(lines.lines[1].text) <= MAX_TEXT + 1 and lines.lines[1].url == "https://b.example/"
    assert len(lines.lines) == 2  # an address beyond what is read of a line is not looked for
    assert lines.reads_code  # written on stdout: it reads its answer there


def test_an_address_a_failure_names_is_no_page_to_open() -> None:
    failed = b"Failed to authenticate with authorization code:request to https://oauth2.example/token failed"
    assert heard(failed, b"Error: https://api.example/v1 answered 500").lines == ()


def test_an_agent_repeating_itself_is_kept_once_and_only_the_latest_few() -> None:
    lines = heard(*(f"https://a.example/{n % 6}".encode() for n in range(20)))
    assert len(lines.lines) == MAX_LINES and len({line.url for line in lines.lines}) == MAX_LINES


@pytest.mark.parametrize(
    ("code", "problem"),
    [
        ("4/0AVMBsJh-good", None),
        ("", "empty"),
        ("a\nb", "line break"),
        ("a\x1b[2Jb", "control character"),
        ("x" * 5000, "longer than"),
    ],
)
def test_a_code_goes_to_the_agent_as_one_plain_line(code: str, problem: str | None) -> None:
    said = code_problem(code)
    assert (said is None) if problem is None else (said is not None and problem in said)
