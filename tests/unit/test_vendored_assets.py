"""The window's vendored JavaScript (src/acp_tray/window/static/vendor): each file exactly the one its
README's table names, by sha256, with its package's licence beside it; nothing there the table leaves out."""

from __future__ import annotations

import hashlib
import re
from pathlib import Path
from typing import NamedTuple

from tests.support.repo import ROOT

VENDOR = ROOT / "src" / "acp_tray" / "window" / "static" / "vendor"
ROW = re.compile(
    r"^\| *(?P<file>[^|]+?) *\| *(?P<package>[^|]+?) *\| *(?P<version>[^|]+?) *\| *(?P<source>[^|]+?) *\|"
    r" *(?P<sha256>[0-9a-f]{64}) *\|$"
)


class Vendored(NamedTuple):
    file: str
    package: str
    version: str
    source: str
    sha256: str


def table(readme: str) -> list[Vendored]:
    """The rows of the README's table that name a file and its sha256."""
    return [Vendored(**match.groupdict()) for line in readme.splitlines() if (match := ROW.match(line))]


def listed() -> list[Vendored]:
    return table((VENDOR / "README.md").read_text(encoding="utf-8"))


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_every_vendored_file_matches_its_sha256_in_the_readme() -> None:
    rows = listed()
    assert {row.file for row in rows} >= {"htmx.min.js", "sse.min.js"}
    mismatched = [
        f"{row.file}: sha256 {actual}, the README says {row.sha256}"
        for row in rows
        if (actual := sha256(VENDOR / row.file)) != row.sha256
    ]
    assert not mismatched, "update the README's table together with the file:\n" + "\n".join(mismatched)


def test_nothing_is_vendored_without_a_row_and_every_row_has_a_file() -> None:
    present = {path.name for path in VENDOR.iterdir()} - {"README.md"}
    assert present == {row.file for row in listed()}


def test_each_package_ships_with_its_licence() -> None:
    rows = listed()
    for package in {row.package for row in rows}:
        licence = [row for row in rows if row.package == package and row.source == "LICENSE"]
        assert [row.file for row in licence] == [f"{package}-LICENSE"], package
        text = (VENDOR / licence[0].file).read_text(encoding="utf-8")
        assert re.search(r"Zero[- ]Clause", text), f"{licence[0].file}: not the Zero-Clause BSD licence"


def test_htmx_is_the_version_the_readme_names() -> None:
    [row] = [row for row in listed() if row.file == "htmx.min.js"]
    assert row.version.startswith("2."), "the SSE extension (htmx-ext-sse 2.x) is for htmx 2"
    assert f'version:"{row.version}"' in (VENDOR / row.file).read_text(encoding="utf-8")


def test_the_table_parser_reads_a_row_and_skips_the_header() -> None:
    text = (
        "| file | package | version | from | sha256 |\n|---|---|---|---|---|\n| a.js | p | 1.0 | dist/a.js | "
        + "0" * 64
        + " |\n"
    )
    assert table(text) == [Vendored("a.js", "p", "1.0", "dist/a.js", "0" * 64)]
