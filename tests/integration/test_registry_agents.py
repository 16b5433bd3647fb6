"""Pairing agents from the ACP Registry, as a person does it: `acp-tray agents search`, `agents add
ID` and `agents upgrade` against a real daemon, with the registry, its archives and icons served
by a real local HTTP server (plain HTTP is accepted from loopback addresses only), and the
agents really started from what was installed."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from acp_tray.files import paths
from tests.hostile.archives import path_max_chain, pax_header_bomb, zip_directory_bomb
from tests.support.config import write_config
from tests.support.daemons import DaemonProcess, carrying, cli, cli_env, start
from tests.support.registry_server import (
    ICON,
    RegistryServer,
    binary_distribution,
    demo_binary,
    entry,
    script,
    tar_gz,
    tree,
)
from tests.support.repo import ROOT

# each daemon in a process group of its own (`start(..., own_group=True)`), ended whole after the test
pytestmark = pytest.mark.usefixtures("whole_groups")


def agents() -> dict[str, dict[str, Any]]:
    return {row["name"]: row for row in json.loads(cli("agents", "list", "--json").stdout)}


# search -------------------------------------------------------------------------------------


def test_search_lists_matching_agents_and_offline_uses_the_cache_and_says_its_age(server: RegistryServer) -> None:
    write_config(
        registry=server.publish(
            entry(
                "codex-acp",
                "0.16.0",
                {"npx": {"package": "@zed-industries/codex-acp@0.16.0"}},
                name="Codex CLI",
                description="ACP adapter for OpenAI's coding assistant",
            ),
            entry(
                "gemini",
                "0.27.3",
                {"npx": {"package": "@google/gemini-cli@0.27.3", "args": ["--experimental-acp"]}},
                description="Google's official CLI for Gemini",
            ),
        )
    )
    found = cli("agents", "search", "openai")
    assert found.returncode == 0, found.stderr
    assert "codex-acp" in found.stdout and "0.16.0" in found.stdout and "gemini" not in found.stdout
    assert stat.S_IMODE(paths.cache_dir().stat().st_mode) == 0o700
    everything = json.loads(cli("agents", "search", "--json").stdout)
    assert [(r["id"], r["distribution"]) for r in everything] == [("codex-acp", ["npx"]), ("gemini", ["npx"])]
    server.close()
    offline = cli("agents", "search", "gemini")
    assert offline.returncode == 0 and "gemini" in offline.stdout
    assert "offline, using the registry as fetched" in offline.stderr and " s ago" in offline.stderr
    assert "Traceback" not in offline.stderr


def test_no_registry_and_no_cache_is_one_clear_line(tmp_path: Path) -> None:
    write_config(registry="http://127.0.0.1:9/registry.json")
    result = cli("agents", "search")
    assert result.returncode == 1
    assert result.stderr.count("\n") == 1 and "cannot read the registry" in result.stderr
    assert "no copy is cached" in result.stderr


def test_add_without_a_daemon_says_so_and_downloads_nothing(server: RegistryServer) -> None:
    write_config(registry=server.publish(demo_binary(server, "1.0.0")))
    result = cli("agents", "add", "demo-acp")
    assert result.returncode == 3 and "acp-tray is not running" in result.stderr
    assert server.hits == {} and tree(paths.data_dir()) == []


def test_a_registry_that_is_not_https_is_refused_in_the_preferences() -> None:
    write_config(registry="http://registry.example.org/registry.json")
    result = cli("agents", "search")
    assert result.returncode == 1 and "config.toml:3: `registry`" in result.stderr and "only https://" in result.stderr


# add ----------------------------------------------------------------------------------------


@pytest.mark.parametrize("kind", ["tar.gz", "zip"])
def test_add_a_binary_agent_downloads_it_unpacks_it_privately_and_it_connects(
    server: RegistryServer, daemons: list[DaemonProcess], kind: str
) -> None:
    config = write_config(registry=server.publish(demo_binary(server, "1.2.0", kind)))
    server.files["/demo-acp.svg"] = ICON
    start(daemons, own_group=True)
    added = cli("agents", "add", "demo-acp")
    assert added.returncode == 0, added.stderr
    assert "demo-acp connected" in added.stdout
    assert "downloading demo-acp 1.2.0" in added.stderr and "kB" in added.stderr  # off a terminal: one line
    home = paths.data_dir() / "agents" / "demo-acp"
    program = home / "1.2.0" / "demo" / "bin" / "demo-acp"
    assert os.access(program, os.X_OK)
    assert sorted(tree(home)) == sorted(
        [
            "1.2.0",
            "1.2.0/demo",
            "1.2.0/demo/bin",
            "1.2.0/demo/bin/demo-acp",
            "1.2.0/demo/LICENSE",
            "icon.svg",
            "install.json",
        ]
    )
    for path in [paths.data_dir(), home.parent, home, *home.rglob("*")]:
        assert stat.S_IMODE(path.stat().st_mode) & 0o077 == 0, path
    assert (home / "icon.svg").read_bytes() == ICON
    text = config.read_text()
    assert "# a comment the person wrote" in text and "[agents.demo-acp]" in text
    assert json.dumps(str(program)) in text  # the command runs it from the data dir
    assert agents()["demo-acp"]["state"] == "connected"
    assert cli("prompt", "demo-acp", "hello").returncode == 0


@pytest.mark.parametrize(
    ("runner", "package", "pinned", "needs"),
    [
        ("npx", "@example/runner-agent", ["-y", "--", "@example/runner-agent@3.1.4", "--acp"], "install Node.js"),
        ("uvx", "runner-agent", ["--", "runner-agent@3.1.4", "--acp"], "install uv"),
    ],
)
def test_add_an_npx_or_uvx_agent_is_a_pinned_command_and_a_missing_runner_names_what_to_install(
    server: RegistryServer, daemons: list[DaemonProcess], tmp_path: Path, runner: str, package: str, pinned: list[str],
    needs: str,
) -> None:  # fmt: skip
    distribution = {runner: {"package": package, "args": ["--acp"], "env": {"X": "1"}}}
    config = write_config(registry=server.publish(entry("runner-agent", "3.1.4", distribution)))
    fake = tmp_path / "bin" / runner  # an npx/uvx that is a real ACP agent: what matters is the command line
    fake.parent.mkdir()
    fake.write_bytes(script(f'echo "$@" > {tmp_path}/args\nexec {sys.executable} -m acp_tray demo-agent'))
    fake.chmod(0o755)
    path = f"{fake.parent}:{os.environ['PATH']}"
    start(daemons, own_group=True, env={"PATH": path})
    empty = tmp_path / "empty-path"
    empty.mkdir()
    missing = cli("agents", "add", "runner-agent", env=cli_env(PATH=str(empty)))
    assert missing.returncode == 1 and f"{runner}, which is not installed" in missing.stderr
    assert needs in missing.stderr and "Traceback" not in missing.stderr
    assert "[agents.runner-agent]" not in config.read_text()
    added = cli("agents", "add", "runner-agent", env=cli_env(PATH=path))
    assert added.returncode == 0, added.stderr
    assert (tmp_path / "args").read_text().split() == pinned
    text = config.read_text()
    assert json.dumps([runner, *pinned]) in text and 'X = "1"' in text
    assert not (paths.data_dir() / "agents" / "runner-agent" / "3.1.4").exists()  # nothing downloaded


@pytest.mark.parametrize(
    ("archive", "reason"),
    [
        (tar_gz({"demo/bin/demo-acp": b"x", "../../evil": b"evil"}), "outside the directory"),
        (tar_gz({"demo/bin/demo-acp": b"x"}, links={"demo/passwd": "/etc/passwd"}), "points outside the directory"),
    ],
)
def test_a_hostile_archive_is_refused_and_nothing_is_installed_or_configured(
    server: RegistryServer, daemons: list[DaemonProcess], archive: bytes, reason: str
) -> None:
    config = write_config(
        registry=server.publish(
            entry("hostile", "1.0.0", binary_distribution(server, "/dl/hostile.tar.gz", "./demo/bin/demo-acp"))
        )
    )
    server.files["/dl/hostile.tar.gz"] = archive
    start(daemons, own_group=True)
    result = cli("agents", "add", "hostile")
    assert result.returncode == 1 and "archive refused" in result.stderr and reason in result.stderr
    assert "[agents.hostile]" not in config.read_text()
    assert [p for p in tree(paths.data_dir()) if not p.endswith(("agents", "agents/hostile"))] == []
    assert not (paths.data_dir().parent / "evil").exists()


def publish_hostile(server: RegistryServer, name: str, archive: bytes) -> Path:
    """The registry offers `hostile` 1.0.0 as the archive `name`; the preferences file."""
    server.files[f"/dl/{name}"] = archive
    return write_config(
        registry=server.publish(
            entry("hostile", "1.0.0", binary_distribution(server, f"/dl/{name}", "./demo/bin/demo-acp"))
        )
    )


def assert_nothing_kept(config: Path) -> None:
    """Not configured, and nothing of the archive under the data dir (its two folders at most)."""
    assert "[agents.hostile]" not in config.read_text()
    assert [p for p in tree(paths.data_dir()) if not p.endswith(("agents", "agents/hostile"))] == []


def test_links_chained_past_path_max_write_nothing_outside_the_agents_folder(
    server: RegistryServer, daemons: list[DaemonProcess], tmp_path: Path
) -> None:
    """CVE-2025-4517's shape, aimed at a file of this test's own: links through long directory
    names take the path past PATH_MAX (where realpath, and with it the stdlib's data filter, stops
    resolving), then a link climbs to the root and a file is written at an absolute path."""
    planted = tmp_path / "outside" / "planted"
    planted.parent.mkdir()
    unpacked = paths.registry_agents_dir() / "hostile" / ".download-abcdefgh" / "unpacked"  # as long as acp-tray's
    config = publish_hostile(server, "hostile.tar.gz", path_max_chain(unpacked, planted))
    start(daemons, own_group=True)
    result = cli("agents", "add", "hostile")
    assert tree(planted.parent) == [], result.stderr
    assert result.returncode == 1 and "Traceback" not in result.stderr, result.stderr
    assert "is inside the link 'a'; archive refused" in result.stderr
    assert_nothing_kept(config)


def add_measured(tmp_path: Path) -> tuple[subprocess.CompletedProcess[str], int]:
    """`acp-tray agents add hostile`, run to its end, and its peak resident memory in MB (the CLI
    downloads and unpacks; the daemon never does)."""
    report = tmp_path / "peak-kb"
    peak = ROOT / "tests" / "support" / "peak_memory.py"
    result = subprocess.run(
        [sys.executable, str(peak), str(report), "acp_tray", "agents", "add", "hostile"],
        capture_output=True,
        text=True,
        env=cli_env(),
        cwd=ROOT,
        timeout=120,
    )
    return result, int(report.read_text()) // 1024


@pytest.mark.parametrize(
    ("name", "archive", "reason"),
    [
        ("bomb.tar.gz", pax_header_bomb, "an extended header of 3221225472 bytes"),
        ("bomb.zip", zip_directory_bomb, "its list of members is 94000000 bytes"),
    ],
    ids=["a 3 GiB pax header in 3 MB of tar.gz", "two million members in a zip's list"],
)
def test_an_archive_made_to_fill_memory_is_refused_in_bounded_memory(
    server: RegistryServer,
    daemons: list[DaemonProcess],
    tmp_path: Path,
    name: str,
    archive: Callable[[], bytes],
    reason: str,
) -> None:
    """A header that tarfile would read whole, or a member list ZipFile would turn into millions
    of objects: refused from what they declare, before they are read, in bounded memory."""
    config = publish_hostile(server, name, archive())
    start(daemons, own_group=True)
    result, peak_mb = add_measured(tmp_path)
    assert peak_mb < 300, f"acp-tray agents add peaked at {peak_mb} MB: {result.stderr}"
    assert result.returncode == 1 and "archive refused" in result.stderr and reason in result.stderr, result.stderr
    assert "Traceback" not in result.stderr
    assert_nothing_kept(config)


def test_a_binary_from_plain_http_elsewhere_is_refused(server: RegistryServer, daemons: list[DaemonProcess]) -> None:
    config = write_config(
        registry=server.publish(
            entry(
                "plain",
                "1.0.0",
                binary_distribution(server, "/x.tar.gz", "./x")
                | {
                    "binary": {
                        "linux-x86_64": {"archive": "http://downloads.example.org/x.tar.gz", "cmd": "./x"},
                        "linux-aarch64": {"archive": "http://downloads.example.org/x.tar.gz", "cmd": "./x"},
                        "darwin-aarch64": {"archive": "http://downloads.example.org/x.tar.gz", "cmd": "./x"},
                    }
                },
            )
        )
    )
    start(daemons, own_group=True)
    result = cli("agents", "add", "plain")
    assert result.returncode == 1 and "only https://" in result.stderr
    assert "[agents.plain]" not in config.read_text()


def test_add_an_unknown_id_or_one_already_configured(server: RegistryServer, daemons: list[DaemonProcess]) -> None:
    write_config(registry=server.publish(demo_binary(server, "1.0.0")))
    start(daemons, own_group=True)
    unknown = cli("agents", "add", "demo")
    assert unknown.returncode == 1 and "no agent 'demo' in the registry" in unknown.stderr
    assert "Traceback" not in unknown.stderr  # said in one line
    assert "did you mean demo-acp" in unknown.stderr
    assert cli("agents", "add", "demo-acp").returncode == 0
    again = cli("agents", "add", "demo-acp")
    assert again.returncode == 1 and "already configured" in again.stderr and "agents upgrade demo-acp" in again.stderr


# upgrade ------------------------------------------------------------------------------------


def demo_added(server: RegistryServer, daemons: list[DaemonProcess]) -> Path:
    """A daemon with demo-acp 1.0.0 added from the registry; the preferences file."""
    config = write_config(registry=server.publish(demo_binary(server, "1.0.0")))
    start(daemons, own_group=True)
    assert cli("agents", "add", "demo-acp").returncode == 0
    return config


def test_upgrade_moves_to_the_new_version_once_it_connects_and_removes_the_old(
    server: RegistryServer, daemons: list[DaemonProcess]
) -> None:
    config = demo_added(server, daemons)
    same = cli("agents", "upgrade")
    assert same.returncode == 0 and "1.0.0 is the registry's current version" in same.stdout
    server.publish(demo_binary(server, "1.1.0"))
    upgraded = cli("agents", "upgrade", "demo-acp")
    assert upgraded.returncode == 0, upgraded.stderr
    assert "1.0.0 → 1.1.0" in upgraded.stdout and "1.1.0 connected; 1.0.0 removed" in upgraded.stdout
    home = paths.data_dir() / "agents" / "demo-acp"
    assert (home / "1.1.0").is_dir() and not (home / "1.0.0").exists()
    assert "/1.1.0/demo/bin/demo-acp" in config.read_text() and "/1.0.0/" not in config.read_text()
    assert agents()["demo-acp"]["state"] == "connected"


def test_an_upgrade_that_does_not_connect_is_rolled_back_and_the_old_version_kept(
    server: RegistryServer, daemons: list[DaemonProcess]
) -> None:
    config = demo_added(server, daemons)
    before = config.read_text()
    server.publish(demo_binary(server, "2.0.0", body=script("echo 'missing library' >&2; exit 1")))
    upgraded = cli("agents", "upgrade", "demo-acp")
    assert upgraded.returncode == 1
    assert "demo-acp 2.0.0 did not connect" in upgraded.stderr and "back on 1.0.0" in upgraded.stderr
    home = paths.data_dir() / "agents" / "demo-acp"
    assert (home / "1.0.0").is_dir() and not (home / "2.0.0").exists()
    assert config.read_text() == before
    deadline = time.monotonic() + 30
    while agents()["demo-acp"]["state"] != "connected" and time.monotonic() < deadline:
        time.sleep(0.1)
    assert agents()["demo-acp"]["state"] == "connected", agents()["demo-acp"]["detail"]
    time.sleep(1.5)  # the failed version's restart delay (1 s) has passed: it was stopped, not restarted
    assert agents()["demo-acp"]["state"] == "connected", agents()["demo-acp"]["detail"]
    assert json.loads((home / "install.json").read_text())["version"] == "1.0.0"


def test_upgrade_of_an_agent_not_from_the_registry_says_so(
    server: RegistryServer, daemons: list[DaemonProcess]
) -> None:
    write_config(registry=server.publish(demo_binary(server, "1.0.0")))
    start(daemons, own_group=True)
    assert cli("agents", "add", "mine", "--", sys.executable, "-m", "acp_tray", "demo-agent").returncode == 0
    result = cli("agents", "upgrade", "mine")
    assert result.returncode == 1 and "mine was not added from the registry" in result.stderr


# a real agent -------------------------------------------------------------------------------


def test_add_codex_acp_from_the_registry_runs_the_pinned_npm_package_and_it_connects(
    server: RegistryServer, daemons: list[DaemonProcess]
) -> None:
    """The registry's codex-acp entry as an npx distribution of the version the tests pin
    (tests/real_agents/package.json): npx fetches it from npm (its cache), and the real agent answers
    `initialize`. It then needs a sign-in (issue 14's other half), said as such."""
    pinned = json.loads((ROOT / "tests" / "real_agents" / "package.json").read_text())["dependencies"]
    version = pinned["@zed-industries/codex-acp"]
    config = write_config(
        registry=server.publish(
            entry(
                "codex-acp",
                version,
                {"npx": {"package": f"@zed-industries/codex-acp@{version}"}},
                name="Codex CLI",
                description="ACP adapter for OpenAI's coding assistant",
                icon=server.url("/codex-acp.svg"),
            )
        )
    )
    server.files["/codex-acp.svg"] = ICON
    start(daemons, own_group=True)
    added = cli("agents", "add", "codex-acp", timeout=600)
    assert added.returncode == 0, added.stderr
    assert "codex-acp connected" in added.stdout
    assert "not ready yet" in added.stdout and "sign in" in added.stdout  # no account here: said, not a failure
    assert f'command = ["npx", "-y", "--", "@zed-industries/codex-acp@{version}"]' in config.read_text()
    assert agents()["codex-acp"]["target"] == f"npx -y -- @zed-industries/codex-acp@{version}"
    print(added.stdout.strip().splitlines()[-1])  # the time from `agents add` to connected (README, closing note)


# remove -------------------------------------------------------------------------------------


def test_remove_stops_the_agent_then_deletes_what_add_installed(
    server: RegistryServer, daemons: list[DaemonProcess]
) -> None:
    """`agents remove ID`: out of the preferences, its process gone, and its installed version,
    record and icon deleted (said, with the size). An agent not from the registry has no files
    to delete, and the other agent's files stay. Added again, it is downloaded again and runs."""
    server.files["/demo-acp.svg"] = ICON
    marked = script(f"DEMO_ACP_MARK=installed exec {sys.executable} -m acp_tray demo-agent")
    config = write_config(registry=server.publish(demo_binary(server, "1.0.0", body=marked)))
    start(daemons, own_group=True)
    assert cli("agents", "add", "demo-acp").returncode == 0
    assert cli("agents", "add", "mine", "--", sys.executable, "-m", "acp_tray", "demo-agent").returncode == 0
    root = paths.data_dir() / "agents"
    installed = sum(p.stat().st_size for p in (root / "demo-acp").rglob("*") if p.is_file())

    def running_it() -> list[int]:
        return carrying((int(p.name) for p in Path("/proc").glob("[0-9]*")), "DEMO_ACP_MARK=installed")

    assert running_it(), "the installed agent is not running"
    removed = cli("agents", "remove", "demo-acp")
    assert removed.returncode == 0, removed.stderr
    deleted = f"deleted its installed files ({installed / 1000:.1f} kB, {root / 'demo-acp'})"
    assert removed.stdout == f"demo-acp: removed (stopped); {deleted}\n", removed.stdout
    assert not (root / "demo-acp").exists() and not running_it()
    assert "[agents.demo-acp]" not in config.read_text() and "# a comment the person wrote" in config.read_text()

    mine = cli("agents", "remove", "mine")
    assert mine.returncode == 0 and mine.stdout == "mine: removed (stopped)\n", mine.stdout
    assert root.is_dir()

    hits = server.hits.get("/dl/demo-1.0.0.tar.gz", 0)
    again = cli("agents", "add", "demo-acp")
    assert again.returncode == 0 and "demo-acp connected" in again.stdout, again.stderr
    assert server.hits["/dl/demo-1.0.0.tar.gz"] == hits + 1 and running_it()
