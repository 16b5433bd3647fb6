"""The registry package on its own: entries in the registry's format, pinned commands, the URL
rule, the cache, and real archives unpacked safely (hostile ones refused, nothing left behind)."""

from __future__ import annotations

import gzip
import io
import json
import os
import stat
import sys
import tarfile
import time
from pathlib import Path

import pytest

from acp_tray.prefs.urls import URLRefusedError, check_url
from acp_tray.protocol.elicitation import openable
from acp_tray.registry.extract import ArchiveError, unpack
from acp_tray.registry.fields import pinned
from acp_tray.registry.index import Registry, RegistryError, cache_file, load, parse_document, parse_entry
from acp_tray.registry.install import install, platform_id
from acp_tray.registry.installed import uninstall
from acp_tray.registry.transfer import TransferError, fetch
from tests.hostile.archives import late_link, path_max_chain, plain_link_chain
from tests.support.platforms import posix_only
from tests.support.registry_server import Drip, RegistryServer, entry, script, tar_gz, tree, validate, zip_file

CODEX = entry("codex-acp", "0.16.0", {"npx": {"package": "@zed-industries/codex-acp@0.16.0"}}, name="Codex CLI")


def test_an_entry_in_the_registry_format_is_read_with_its_icon_made_absolute() -> None:
    data = entry(
        "vibe", "2.0.2", {"uvx": {"package": "mistral-vibe", "args": ["acp"], "env": {"A": "1"}}}, icon="./icon.svg"
    )
    validate({"version": "1.0.0", "agents": [data], "extensions": []})
    parsed = parse_entry(data, "https://example.org/registry/v1/latest/registry.json")
    assert parsed.uvx is not None and parsed.uvx.args == ("acp",) and parsed.uvx.env == {"A": "1"}
    assert parsed.icon == "https://example.org/registry/v1/latest/icon.svg"
    assert parsed.kinds == ["uvx"]


def test_a_malformed_entry_is_skipped_and_said_the_rest_is_kept() -> None:
    broken = {"id": "broken", "name": "B", "version": "1.0.0", "description": "d", "distribution": {"npx": {}}}
    entries, skipped = parse_document({"version": "1.0.0", "agents": [CODEX, broken]}, "https://x/r.json")
    assert [e.id for e in entries] == ["codex-acp"]
    assert [str(s) for s in skipped] == ["agent broken: 'package' must be a non-empty string"]
    with pytest.raises(RegistryError, match="not a registry document"):
        parse_document(["not", "a", "registry"], "https://x/r.json")


@pytest.mark.parametrize("agent_id", ["../../escape", "Upper", "a/b", ""])
def test_an_id_that_is_not_a_plain_name_is_refused(agent_id: str) -> None:
    """The id becomes a directory under the data dir and a preferences key: never a path."""
    data = entry("x", "1.0.0", {"npx": {"package": "p"}}) | {"id": agent_id}
    entries, skipped = parse_document({"agents": [data, CODEX]}, "https://x/r.json")
    assert [e.id for e in entries] == ["codex-acp"] and len(skipped) == 1


def test_search_matches_every_word_in_id_name_or_description() -> None:
    entries, _ = parse_document(
        {
            "agents": [
                CODEX,
                entry(
                    "gemini",
                    "0.27.3",
                    {"npx": {"package": "@google/gemini-cli@0.27.3"}},
                    description="Google's official CLI for Gemini",
                ),
            ]
        },
        "https://x/r.json",
    )
    registry = Registry("https://x/r.json", entries, time.time())
    assert [e.id for e in registry.search(["cli"])] == ["codex-acp", "gemini"]
    assert [e.id for e in registry.search(["GOOGLE", "cli"])] == ["gemini"]
    assert registry.search(["nothing-like-it"]) == []
    with pytest.raises(RegistryError, match="did you mean codex-acp"):
        registry.find("codex")


@pytest.mark.parametrize(
    ("kind", "package", "expected"),
    [
        ("npx", "@zed-industries/codex-acp", "@zed-industries/codex-acp@0.16.0"),
        ("npx", "@zed-industries/codex-acp@0.16.0", "@zed-industries/codex-acp@0.16.0"),
        ("npx", "codex", "codex@0.16.0"),
        ("uvx", "mistral-vibe==0.16.0", "mistral-vibe==0.16.0"),
        ("uvx", "mistral-vibe", "mistral-vibe@0.16.0"),
    ],
)
def test_packages_are_pinned_to_the_registry_version(kind: str, package: str, expected: str) -> None:
    assert pinned(kind, package, "0.16.0") == expected


@pytest.mark.parametrize(
    ("kind", "package", "command"),
    [
        ("npx", "@acme/tools", ["npx", "-y", "--package", "@acme/tools@2.0.0", "--", "acme-acp", "--stdio"]),
        ("npx", "@acme/tools@1.9.0", ["npx", "-y", "--package", "@acme/tools@1.9.0", "--", "acme-acp", "--stdio"]),
        ("uvx", "hermes-agent[acp]", ["uvx", "--from", "hermes-agent[acp]==2.0.0", "--", "acme-acp", "--stdio"]),
        ("uvx", "hermes-agent@1.9.0", ["uvx", "--from", "hermes-agent==1.9.0", "--", "acme-acp", "--stdio"]),
        ("uvx", "hermes-agent>=1.9,<3", ["uvx", "--from", "hermes-agent>=1.9,<3", "--", "acme-acp", "--stdio"]),
    ],
)
def test_a_package_entry_with_a_cmd_runs_that_program_from_the_pinned_package(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, kind: str, package: str, command: list[str]
) -> None:
    """`npx --package PKG@VERSION -- CMD ARGS`, `uvx --from PKG==VERSION -- CMD ARGS` (the runner
    found on PATH: here a stand-in, as only the command is looked at)."""
    runners = tmp_path / "bin"
    runners.mkdir()
    runner = runners / (kind + (".cmd" if sys.platform == "win32" else ""))  # found by PATHEXT on Windows
    runner.write_bytes(script("exit 0"))
    runner.chmod(0o755)
    monkeypatch.setenv("PATH", str(runners))
    distribution = {kind: {"package": package, "cmd": "acme-acp", "args": ["--stdio"]}}
    parsed = parse_entry(entry("acme", "2.0.0", distribution), "https://registry.test/registry.json")
    assert install(parsed, tmp_path / "agents").command == command


@pytest.mark.parametrize("cmd", ["--from=evil", "-c", "../bin/sh", "/bin/sh", "a b", ".hidden", "x" * 129])
def test_a_package_cmd_is_a_program_name_never_an_option_or_a_path(cmd: str) -> None:
    distribution = {"uvx": {"package": "hermes-agent", "cmd": cmd}}
    with pytest.raises(ValueError, match="is not a program name"):
        parse_entry(entry("acme", "2.0.0", distribution), "https://registry.test/registry.json")


# the packages of the registry's own entries (github.com/agentclientprotocol/registry, 3de1678), and
# what uv and npm also take as a pinned package
REAL_PACKAGES = [
    ("npx", "@jetbrains/junie-cli@704.1.0"),
    ("npx", "@augmentcode/auggie@0.15.0"),
    ("npx", "@zed-industries/claude-code-acp@0.16.0"),
    ("npx", "@google/gemini-cli@0.27.3"),
    ("npx", "@github/copilot-language-server@1.425.0"),
    ("npx", "@qoder-ai/qodercli@0.1.26"),
    ("npx", "@qwen-code/qwen-code@0.9.1"),
    ("npx", "codex"),
    ("npx", "pkg@>=1.0.0 <2"),
    ("uvx", "mistral-vibe"),
    ("uvx", "mistral-vibe==2.0.2"),
    ("uvx", "mistral_vibe[acp]@2.0.2"),
    ("uvx", "Some.Agent>=1.0,<2"),
]
HOSTILE_PACKAGES = [
    ("npx", "--call=touch /tmp/x", "not an npm package name"),  # npx's own option: it ran the command
    ("npx", "-y", "not an npm package name"),
    ("npx", "x@file:/tmp/evil", "not an npm package name"),  # a path, a URL or an alias is not a version
    ("npx", "x@git+https://example.org/evil.git", "not an npm package name"),
    ("npx", "x@npm:other", "not an npm package name"),
    ("npx", "owner/repo", "not an npm package name"),
    ("npx", "x" * 215, "not an npm package name"),
    ("uvx", "--from=evil", "not a PyPI package name"),
    ("uvx", "-x", "not a PyPI package name"),
    ("uvx", "agent @ https://example.org/evil.whl", "not a PyPI package name"),
    ("uvx", "agent; os_name == 'posix'", "not a PyPI package name"),
]


def test_a_package_is_a_name_of_its_runners_grammar_never_an_option_a_url_or_a_path() -> None:
    """What the registry names as a package becomes an argument of npx or uvx: the registry's real
    ones are read; one that would be an option of npx/uvx (or fetch from a URL or a path) is
    refused with the entry's name and why, and the rest of the document is kept."""
    agents = [entry(f"a{n}", "1.0.0", {kind: {"package": package}}) for n, (kind, package) in enumerate(REAL_PACKAGES)]
    hostile = [
        entry(f"h{n}", "1.0.0", {kind: {"package": package}}) for n, (kind, package, _) in enumerate(HOSTILE_PACKAGES)
    ]
    entries, skipped = parse_document({"agents": [*agents, *hostile]}, "https://x/r.json")
    assert [e.id for e in entries] == [a["id"] for a in agents]
    assert [s.id for s in skipped] == [h["id"] for h in hostile]
    for problem, (kind, _, reason) in zip(skipped, HOSTILE_PACKAGES, strict=True):
        assert f"{kind} package" in str(problem) and reason in str(problem), problem
        assert len(str(problem)) < 300  # the refused value is shown bounded
    registry = Registry("https://x/r.json", entries, time.time(), skipped=skipped)
    with pytest.raises(RegistryError, match=r"the registry's entry for agent h0: npx package '--call=touch /tmp/x'"):
        registry.find("h0")


@pytest.mark.parametrize(
    ("field", "value", "reason"),
    [
        ("id", "a" * 65, "is longer than 64 characters"),
        ("id", "a" * 300, "is longer than 64 characters"),
        ("version", "1.0.0" + "0" * 5000, "is not a version acp-tray can use as a directory"),
        ("version", "1.0.0/../../x", "is not a version acp-tray can use as a directory"),
        ("cmd", "./" + "x" * 300, "is not a file name acp-tray can use"),
        ("cmd", "../../bin/sh", "is outside its own directory"),
    ],
    ids=["id-65", "id-300", "version-5000", "version-path", "cmd-300", "cmd-outside"],
)
def test_an_id_version_or_cmd_that_cannot_be_a_path_is_refused_when_read(field: str, value: str, reason: str) -> None:
    """The id and version become directories (and the id a preferences key), the cmd a file in
    them: each is checked as the document is read, before anything is downloaded or written."""
    target = {"archive": "https://h/a.tar.gz", "cmd": value if field == "cmd" else "./agent"}
    data = entry("ok", "1.0.0", {"binary": {"linux-x86_64": target}})
    if field != "cmd":
        data[field] = value
    entries, skipped = parse_document({"agents": [data, CODEX]}, "https://x/r.json")
    assert [e.id for e in entries] == ["codex-acp"]
    assert len(skipped) == 1 and reason in str(skipped[0]) and len(str(skipped[0])) < 300, skipped


def test_this_platform_has_a_registry_name() -> None:
    assert platform_id() in (
        "linux-x86_64",
        "linux-aarch64",
        "darwin-x86_64",
        "darwin-aarch64",
        "windows-x86_64",
        "windows-aarch64",
    )


@pytest.mark.parametrize(
    "url", ["http://example.org/r.json", "ftp://example.org/r.json", "file:///etc/passwd", "https:///nohost"]
)
def test_only_https_or_loopback_http_is_fetched(url: str) -> None:
    with pytest.raises(URLRefusedError, match="only https://"):
        check_url(url)
    assert check_url("https://cdn.example.org/r.json") and check_url("http://127.0.0.1:8000/r.json")


@pytest.mark.parametrize(
    "url",
    [
        "http://example.org/r.json",
        "ftp://example.org/r.json",
        "https:///nohost",
        "http://[::1]:8000/r.json",
        "http://localhost/r.json",
        "https://cdn.example.org/r.json",
    ],
)
def test_a_registry_url_and_a_page_a_question_opens_follow_one_rule_said_alike(url: str) -> None:
    """The `registry` preference is refused for the same addresses as a question's page that acp-tray
    will not open, and in the same words: why, then that only https:// is used."""
    opened, fetched = openable(url), None
    try:
        check_url(url)
    except URLRefusedError as exc:
        fetched = str(exc)
    assert (fetched is None) == (opened is None)
    if opened is not None:
        assert fetched == f"{url}: refused, {opened.replace('is opened', 'is fetched')}"


@posix_only("file modes")
def test_the_cache_is_private_keeps_its_fetch_time_and_serves_offline(tmp_path: Path) -> None:
    server = RegistryServer()
    try:
        url = server.publish(CODEX)
        fresh = load(url, tmp_path)
        assert fresh.offline is None and [e.id for e in fresh.entries] == ["codex-acp"]
        cached = cache_file(tmp_path, url)
        assert stat.S_IMODE(cached.stat().st_mode) == 0o600
        assert stat.S_IMODE(cached.parent.stat().st_mode) == 0o700
        assert json.loads(cached.read_text())["fetched"] == pytest.approx(fresh.fetched)
    finally:
        server.close()
    offline = load(url, tmp_path, timeout=2)
    assert offline.offline is not None and "127.0.0.1" in offline.offline
    assert offline.fetched == pytest.approx(fresh.fetched) and [e.id for e in offline.entries] == ["codex-acp"]
    with pytest.raises(RegistryError, match="no copy is cached"):
        load(url.replace("registry.json", "other.json"), tmp_path, timeout=2)


def test_downloads_are_size_bounded_and_redirects_stay_on_https(tmp_path: Path) -> None:
    server = RegistryServer()
    try:
        server.files["/big"] = b"x" * 5000
        sink = io.BytesIO()
        with pytest.raises(TransferError, match="5000 bytes is over the limit of 1000 bytes; not downloaded"):
            fetch(server.url("/big"), timeout=5, deadline=30, limit=1000, sink=sink)
        assert sink.getvalue() == b""  # refused on its announced size, before reading it
        seen: list[tuple[int, int | None]] = []
        got = fetch(
            server.url("/big"),
            timeout=5,
            deadline=30,
            limit=5000,
            sink=sink,
            progress=lambda *a: seen.append(a),
        )
        assert got == 5000
        assert seen[-1] == (5000, 5000)
        server.redirects["/moved"] = "http://downloads.example.org/agent.tar.gz"
        with pytest.raises(TransferError, match=r"redirected to .*only https://"):
            fetch(server.url("/moved"), timeout=5, deadline=30, limit=1000, sink=io.BytesIO())
        server.redirects["/here"] = server.url("/big")  # loopback to loopback: followed
        assert fetch(server.url("/here"), timeout=5, deadline=30, limit=5000, sink=io.BytesIO()) == 5000
    finally:
        server.close()


@pytest.mark.parametrize("headers", [False, True], ids=["body", "status-and-headers"])
def test_a_download_that_drips_is_stopped_at_its_deadline(headers: bool) -> None:
    """A server that sends a byte now and then never trips the timeout for each read: the whole
    transfer has a deadline too, while its headers come and while its body does."""
    server = RegistryServer()
    try:
        server.files["/slow.tar.gz"] = b"x" * 10_000
        server.drips["/slow.tar.gz"] = Drip(0.05, headers=headers)  # 500 s for all of it
        sink = io.BytesIO()
        with pytest.raises(TransferError, match=r"/slow.tar.gz: not done within 1.5 s; download stopped"):
            fetch(server.url("/slow.tar.gz"), timeout=5, deadline=1.5, limit=100_000, sink=sink)
        assert len(sink.getvalue()) < 10_000
    finally:
        server.close()


def test_a_registry_nested_too_deeply_is_a_clear_error_and_the_cached_copy_still_serves(tmp_path: Path) -> None:
    """Python's JSON parser gives up (RecursionError) on a deep enough document: said in plain
    words, and the cached copy is used as when the registry cannot be reached."""
    server = RegistryServer()
    deep = b"[" * 200_000 + b"]" * 200_000
    try:
        server.files["/deep.json"] = deep
        with pytest.raises(RegistryError, match="the registry document is nested too deeply to be read"):
            load(server.url("/deep.json"), tmp_path)
        url = server.publish(CODEX)
        load(url, tmp_path)
        server.files["/registry.json"] = deep
        offline = load(url, tmp_path)
        assert [e.id for e in offline.entries] == ["codex-acp"]
        assert offline.offline is not None and "nested too deeply" in offline.offline
        cache_file(tmp_path, url).write_bytes(b'{"url": ' + deep + b"}")  # a damaged cache: not a copy, no traceback
        with pytest.raises(RegistryError, match=r"nested too deeply .*no copy is cached"):
            load(url, tmp_path)
    finally:
        server.close()


# archives -------------------------------------------------------------------------------------


def _write(tmp_path: Path, name: str, data: bytes) -> Path:
    path = tmp_path / name
    path.write_bytes(data)
    return path


@posix_only("file modes")
@pytest.mark.parametrize("kind", ["tar.gz", "zip"])
def test_a_real_archive_is_unpacked_private_and_executable(tmp_path: Path, kind: str) -> None:
    members = {"bin/agent": script("echo hi"), "README": b"read me"}
    data = tar_gz(members) if kind == "tar.gz" else zip_file(members)
    target = tmp_path / "out"
    unpack(_write(tmp_path, f"a.{kind}", data), target, url=f"https://h/agent.{kind}")
    assert (target / "bin" / "agent").read_bytes() == members["bin/agent"]
    assert os.access(target / "bin" / "agent", os.X_OK)
    for path in [target, *target.rglob("*")]:
        assert stat.S_IMODE(path.stat().st_mode) & 0o077 == 0, path


def _encrypted_zip() -> bytes:
    """A member marked encrypted (general purpose flag bit 0), in its local and central headers."""
    data = bytearray(zip_file({"agent": b"x" * 12 + b"ciphertext"}))
    for flags in (6, data.rfind(b"PK\x01\x02") + 8):
        data[flags] |= 0x1
    return bytes(data)


def _with_absolute_member() -> bytes:
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as archive:
        info = tarfile.TarInfo("/tmp/evil")
        info.size = 4
        archive.addfile(info, io.BytesIO(b"evil"))
    return buffer.getvalue()


@pytest.mark.parametrize(
    ("name", "data", "reason"),
    [
        ("dotdot.tar.gz", tar_gz({"ok": b"x", "../escaped": b"evil"}), r"outside the directory \(\.\.\)"),
        ("link.tar.gz", tar_gz({"ok": b"x"}, links={"passwd": "/etc/passwd"}), "link 'passwd' -> '/etc/passwd'"),
        ("uplink.tar.gz", tar_gz({"ok": b"x"}, links={"a/up": "../../x"}), "points outside the directory"),
        ("abs.tar.gz", _with_absolute_member(), "absolute path"),
        ("dotdot.zip", zip_file({"ok": b"x", "a/../../escaped": b"evil"}), r"outside the directory \(\.\.\)"),
        ("link.zip", zip_file({"ok": b"x"}, links={"passwd": "/etc/passwd"}), "is a link"),
    ],
    ids=lambda value: "archive" if isinstance(value, bytes) else None,  # a gzip header's time: not in an id
)
def test_hostile_archives_are_refused_and_leave_nothing(tmp_path: Path, name: str, data: bytes, reason: str) -> None:
    work = tmp_path / "work"
    (work / "deep").mkdir(parents=True)
    target = work / "deep" / "out"
    with pytest.raises(ArchiveError, match=reason):
        unpack(_write(work, name, data), target, url=f"https://h/{name}")
    assert tree(work) == sorted(["deep", name])  # nothing unpacked, nothing escaped


@posix_only("symlinks")
def test_a_link_inside_the_archive_is_kept(tmp_path: Path) -> None:
    """Links that resolve inside are unpacked as links: one beside its file, one to another
    directory (an agent's `bin/agent -> ../lib/agent`), and a chain of links to links."""
    links = {
        "lib/alias": "real",
        "bin/agent": "../lib/agent",
        "lib/x.so": "x.so.1",
        "lib/x.so.1": "x.so.1.2",
        "lib/here": ".",
    }
    files = {"lib/real": b"x", "lib/agent": script("echo agent"), "lib/x.so.1.2": b"elf"}
    target = tmp_path / "out"
    unpack(_write(tmp_path, "a.tar.gz", tar_gz(files, links=links)), target, url="https://h/a.tar.gz")
    assert (target / "lib" / "alias").read_bytes() == b"x"
    assert (target / "bin" / "agent").is_symlink() and os.access(target / "bin" / "agent", os.X_OK)
    assert (target / "lib" / "x.so").read_bytes() == b"elf"
    assert (target / "lib" / "here" / "real").read_bytes() == b"x"


@posix_only("symlinks")
@pytest.mark.parametrize("stdlib_filter", [True, False], ids=["with the data filter", "our checks alone"])
@pytest.mark.parametrize("shape", ["plain chain", "PATH_MAX chain"])
def test_a_member_is_never_written_through_a_link(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, shape: str, stdlib_filter: bool
) -> None:
    """Links that are each lexically inside, chained so that a member written through them lands
    outside: above the target directory (`x/l -> ..`, `x/l/m -> ../..`), or at an absolute path
    (CVE-2025-4517: past PATH_MAX, where os.path.realpath, and so the stdlib's data filter, stops
    resolving). Refused whole, with or without the stdlib filter (Python before 3.11.4 has none)."""
    if not stdlib_filter:
        monkeypatch.delattr(tarfile, "data_filter")
    work = tmp_path / "work"
    (work / "deep").mkdir(parents=True)
    target = work / "deep" / "out"
    planted = tmp_path / "outside" / "planted"
    planted.parent.mkdir()
    data = plain_link_chain("planted") if shape == "plain chain" else path_max_chain(target, planted)
    with pytest.raises(ArchiveError, match=r"is inside the link '(x/l|a)'; archive refused"):
        unpack(_write(work, "a.tar.gz", data), target, url="https://h/a.tar.gz")
    assert tree(work) == ["a.tar.gz", "deep"] and tree(planted.parent) == []


@posix_only("symlinks")
def test_a_link_is_checked_against_links_later_in_the_archive(tmp_path: Path) -> None:
    """`up -> p/q/../..` resolves inside while `p` does not exist; a later `p -> .` would make it
    the directory above. Every link is checked against the whole archive first."""
    work = tmp_path / "work"
    work.mkdir()
    with pytest.raises(ArchiveError, match=r"link 'up' -> 'p/q/../..' passes through the link 'p'; archive refused"):
        unpack(_write(work, "a.tar.gz", late_link()), work / "out", url="https://h/a.tar.gz")
    assert tree(work) == ["a.tar.gz"]


def _pax_headers(count: int, size: int) -> bytes:
    """`count` pax headers of `size` bytes in a row (records of zeros), then a file."""
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as archive:
        for _ in range(count):
            header = tarfile.TarInfo("././@PaxHeader")
            header.type, header.size = tarfile.XHDTYPE, size
            archive.addfile(header, io.BytesIO(bytes(size)))
        archive.addfile(tarfile.TarInfo("agent"), io.BytesIO(b""))
    return buffer.getvalue()


def _declared(size: int) -> bytes:
    """A file header that declares `size` bytes, the archive ending right after it."""
    info = tarfile.TarInfo("agent")
    info.size = size
    return gzip.compress(info.tobuf(tarfile.GNU_FORMAT))


@pytest.mark.parametrize(
    ("data", "reason"),
    [
        (_pax_headers(1, 2 * 1024 * 1024), r"an extended header of 2097152 bytes \(more than 1048576\)"),
        (_pax_headers(2000, 0), "more than 4 extended headers in a row"),
        (_declared(5 * 1024**3), "unpacks to more than 4294967296 bytes"),
    ],
    ids=["a big extended header", "extended headers in a row", "a member declaring 5 GiB"],
)
def test_tar_headers_are_bounded_before_they_are_read(tmp_path: Path, data: bytes, reason: str) -> None:
    """Refused from the header itself: not read into memory (a pax header), not followed down
    the stack (headers in a row), not decompressed through to find what comes next (5 GiB)."""
    with pytest.raises(ArchiveError, match=f"{reason}; archive refused"):
        unpack(_write(tmp_path, "a.tar.gz", data), tmp_path / "out", url="https://h/a.tar.gz")
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize(
    ("name", "data", "reason"),
    [
        pytest.param(
            "long.tar.gz",
            tar_gz({"n" * 300: b"x"}),
            r"could not be unpacked \(File name too long\)",
            marks=posix_only("ENAMETOOLONG's wording"),
        ),
        ("secret.zip", _encrypted_zip(), r"member 'agent' is encrypted; archive refused"),
    ],
)
def test_an_archive_that_cannot_be_unpacked_is_a_clear_error(
    tmp_path: Path, name: str, data: bytes, reason: str
) -> None:
    with pytest.raises(ArchiveError, match=reason):
        unpack(_write(tmp_path, name, data), tmp_path / "out", url=f"https://h/{name}")
    assert not (tmp_path / "out").exists()


def test_not_an_archive_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(ArchiveError, match="not a readable archive"):
        unpack(_write(tmp_path, "a.tar.gz", b"not gzip at all"), tmp_path / "out", url="https://h/a.tar.gz")
    assert not (tmp_path / "out").exists()


def test_uninstall_deletes_the_agents_own_directory_and_says_what_it_freed(tmp_path: Path) -> None:
    root = tmp_path / "agents"
    (root / "demo" / "1.0.0" / "bin").mkdir(parents=True)
    (root / "demo" / "1.0.0" / "bin" / "demo").write_bytes(b"x" * 3000)
    (root / "demo" / "install.json").write_text("{}")
    (root / "other").mkdir()
    assert uninstall("demo", root) == 3002
    assert not (root / "demo").exists() and (root / "other").is_dir()
    assert uninstall("demo", root) is None  # nothing installed: nothing to say


@posix_only("symlinks")
def test_uninstall_never_follows_a_link_out_of_the_agents_directory(tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "keep.txt").write_text("the person's")
    root = tmp_path / "agents"
    (root / "demo").mkdir(parents=True)
    (root / "demo" / "lib").symlink_to(outside)  # a link inside an archive's tree
    (root / "linked").symlink_to(outside, target_is_directory=True)  # an agent's directory that is a link
    assert uninstall("linked", root) is None and (root / "linked").is_symlink()
    uninstall("demo", root)
    assert not (root / "demo").exists()
    assert (outside / "keep.txt").read_text() == "the person's"
