"""The CLI's output is UTF-8 on Windows also into a pipe or a file (Python's default there is the
ANSI code page: "—" would be 0x97 and "🎉" could not be written), and never fails on a character."""

from __future__ import annotations

import io
import sys

import pytest

from acp_tray import cli

TEXT = "→ 🎉 — ünïcödé · \udcff"


@pytest.mark.parametrize("platform", ["win32", "linux"])
def test_output_to_a_pipe_is_utf8_on_windows_and_never_fails(platform: str, monkeypatch: pytest.MonkeyPatch) -> None:
    buffers = {name: io.BytesIO() for name in ("stdout", "stderr")}
    encoding = "cp1252" if platform == "win32" else "utf-8"  # what Python picks for a pipe there
    for name, buffer in buffers.items():
        monkeypatch.setattr(sys, name, io.TextIOWrapper(buffer, encoding=encoding, errors="strict"))
    monkeypatch.setattr(sys, "platform", platform)
    cli._utf8_output()
    print(TEXT)
    print(TEXT, file=sys.stderr)
    for name, buffer in buffers.items():
        getattr(sys, name).flush()
        written = buffer.getvalue().decode("utf-8").replace("\r\n", "\n")  # Windows ends lines with CRLF
        assert written == "→ 🎉 — ünïcödé · ?\n", name  # a lone surrogate: "?"
