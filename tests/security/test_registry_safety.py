"""Items 3 and 9 of the security review, as a person meets them: `acp-tray agents add ID` and
`agents search` against a real daemon, a real npx and a registry document served by the local
registry server (tests/support/registry_server.py; for npm packages, a local npm registry on it too).

- a registry `package` (or `args`) never becomes an option of npx itself (`--call` ran a command);
- a package entry's `cmd` (the program the package installs) is the program run, and never an option;
- an id or version that cannot be a directory is refused before anything is downloaded;
- a registry document nested too deeply is a clear error, never a traceback;
- a download that drips is stopped at its deadline;
- Ctrl+C while a command waits (on a download, on the daemon) exits 130.
"""

from __future__ import annotations

import base64
import hashlib
import json
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from acp_tray.files import paths
from tests.support.config import write_config
from tests.support.daemons import DaemonProcess, cli, cli_env, cli_started, start
from tests.support.registry_server import Drip, RegistryServer, demo_binary, entry, script, tar_gz, tree
from tests.support.repo import ROOT
from tests.support.waiting import until

# each daemon in a process group of its own (`start(..., own_group=True)`), ended whole after the test
pytestmark = pytest.mark.usefixtures("whole_groups")

HERE = Path(__file__).resolve().parent


def npm_env(registry: RegistryServer, tmp_path: Path) -> dict[str, str]:
    """npm's settings for a daemon whose npx installs from the local registry, into a cache of the test's own."""
    return {
        "npm_config_registry": registry.url("/npm/"),
        "npm_config_cache": str(tmp_path / "npm-cache"),
        "npm_config_update_notifier": "false",
        "npm_config_audit": "false",
        "npm_config_fund": "false",
    }


def publish_npm_package(
    registry: RegistryServer, name: str, version: str, program: bytes, others: dict[str, bytes] | None = None
) -> None:
    """A real npm package (packument and tarball, as npm's registry serves them) whose bin is `program`
    (and `others`: more bins, by name)."""
    programs = {name: program, **(others or {})}
    manifest = {"name": name, "version": version, "bin": {bin_name: f"{bin_name}.sh" for bin_name in programs}}
    files = {f"package/{bin_name}.sh": body for bin_name, body in programs.items()}
    tarball = tar_gz({"package/package.json": json.dumps(manifest).encode(), **files})
    path = f"/npm/{name}/-/{name}-{version}.tgz"
    registry.files[path] = tarball
    integrity = "sha512-" + base64.b64encode(hashlib.sha512(tarball).digest()).decode()
    dist = {"tarball": registry.url(path), "integrity": integrity, "shasum": hashlib.sha1(tarball).hexdigest()}
    packument = {"name": name, "dist-tags": {"latest": version}, "versions": {version: {**manifest, "dist": dist}}}
    registry.files[f"/npm/{name}"] = json.dumps(packument).encode()


# item 3: the registry cannot run a command through npx ---------------------------------------


NOT_A_PACKAGE = ("npx package '--", "is not an npm package name")
NOT_A_PROGRAM = ("npx cmd '", "is not a program name")


@pytest.mark.parametrize(
    ("distribution", "said"),
    [
        ({"package": "--call=touch {marker}"}, NOT_A_PACKAGE),  # the package is an npx option
        ({"package": "--yes", "args": ["--call=touch {marker}"]}, NOT_A_PACKAGE),  # the args become npx options
        ({"package": "suite-tools", "cmd": "--call=touch {marker}"}, NOT_A_PROGRAM),  # the program is an option
        ({"package": "suite-tools", "cmd": "-c"}, NOT_A_PROGRAM),
        ({"package": "suite-tools", "cmd": "../../bin/sh"}, NOT_A_PROGRAM),  # a path, not the package's program
    ],
    ids=["package", "args", "cmd", "cmd-short-option", "cmd-path"],
)
def test_a_registry_package_or_cmd_that_is_an_npx_option_never_runs(
    server: RegistryServer,
    daemons: list[DaemonProcess],
    tmp_path: Path,
    distribution: dict[str, Any],
    said: tuple[str, str],
) -> None:
    marker = tmp_path / "ran"
    npx = json.loads(json.dumps(distribution).replace("{marker}", str(marker)))
    config = write_config(registry=server.publish(entry("hostile", "1.0.0", {"npx": npx})))
    before = config.read_text()
    start(daemons, own_group=True, env=npm_env(server, tmp_path))
    result = cli("agents", "add", "hostile")
    assert not marker.exists(), "npx ran the registry's command"
    assert config.read_text() == before  # nothing saved
    assert result.returncode == 1, result
    assert f"the registry's entry for agent hostile: {said[0]}" in result.stderr
    assert said[1] in result.stderr and "Traceback" not in result.stderr
    assert tree(paths.data_dir()) == []


def test_the_registrys_args_reach_the_agent_as_its_own_arguments(
    server: RegistryServer, daemons: list[DaemonProcess], tmp_path: Path
) -> None:
    """A real npx installs a real package from the local npm registry and runs it: what the
    registry gives as `args` (options-looking included) are the program's arguments, after `--`
    in the saved command, never npx's own options."""
    marker, seen = tmp_path / "ran", tmp_path / "argv"
    agent = script(f'printf "%s\\n" "$@" > {seen}\nexec {sys.executable} -m acp_tray demo-agent')
    publish_npm_package(server, "argv-agent", "1.0.0", agent)
    args = [f"--call=touch {marker}", "-c", f"touch {marker}", "--acp"]
    distribution = {"npx": {"package": "argv-agent", "args": args}}
    config = write_config(registry=server.publish(entry("argv-agent", "1.0.0", distribution)))
    start(daemons, own_group=True, env=npm_env(server, tmp_path))
    added = cli("agents", "add", "argv-agent", timeout=120)
    assert added.returncode == 0, added.stderr
    assert "argv-agent connected" in added.stdout
    assert not marker.exists(), "npx ran the registry's args as its own --call"
    assert seen.read_text().splitlines() == args
    assert f"command = {json.dumps(['npx', '-y', '--', 'argv-agent@1.0.0', *args])}" in config.read_text()
    assert server.hits["/npm/argv-agent/-/argv-agent-1.0.0.tgz"] == 1  # the real package, from the registry


def test_a_package_entrys_cmd_is_the_program_npx_runs(
    server: RegistryServer, daemons: list[DaemonProcess], tmp_path: Path
) -> None:
    """A package whose ACP agent is not the program named as the package (`npx --package PKG CMD`):
    the registry's `cmd` names it, and that program runs, pinned, with the registry's args."""
    wrong, seen = tmp_path / "wrong-program-ran", tmp_path / "argv"
    agent = script(f'printf "%s\\n" "$@" > {seen}\nexec {sys.executable} -m acp_tray demo-agent')
    publish_npm_package(server, "suite-tools", "2.0.0", script(f"touch {wrong}; exit 3"), {"suite-acp": agent})
    distribution = {"npx": {"package": "suite-tools", "cmd": "suite-acp", "args": ["--acp"]}}
    config = write_config(registry=server.publish(entry("suite", "2.0.0", distribution)))
    start(daemons, own_group=True, env=npm_env(server, tmp_path))
    added = cli("agents", "add", "suite", timeout=120)
    assert not wrong.exists(), "npx ran the package's own program, not its cmd"
    assert added.returncode == 0, added.stderr
    assert "suite connected" in added.stdout
    assert seen.read_text().splitlines() == ["--acp"]
    command = ["npx", "-y", "--package", "suite-tools@2.0.0", "--", "suite-acp", "--acp"]
    assert f"command = {json.dumps(command)}" in config.read_text()


# item 9: fields that become paths, checked before anything is downloaded ---------------------


@pytest.mark.parametrize(
    ("agent_id", "version", "said"),
    [
        ("a" * 65, "1.0.0", "is longer than 64 characters"),  # was: downloaded, installed, then refused
        ("a" * 255, "1.0.0", "is longer than 64 characters"),
        ("a" * 300, "1.0.0", "is longer than 64 characters"),  # was: OSError traceback
        ("demo-acp", "1.0.0" + "0" * 5000, "is not a version acp-tray can use as a directory"),  # was: traceback
    ],
    ids=["id-65", "id-255", "id-300", "version-5000"],
)
def test_an_id_or_version_that_cannot_be_a_directory_is_refused_before_any_download(
    server: RegistryServer, daemons: list[DaemonProcess], agent_id: str, version: str, said: str
) -> None:
    published = demo_binary(server, "1.0.0") | {"id": agent_id, "version": version}
    config = write_config(registry=server.publish(published))
    before = config.read_text()
    start(daemons, own_group=True)
    result = cli("agents", "add", agent_id)
    assert result.returncode == 1, result
    assert f"the registry's entry for agent {agent_id[:10]}" in result.stderr and said in result.stderr
    assert "not installed" in result.stderr and "Traceback" not in result.stderr
    assert max(len(line) for line in result.stderr.splitlines()) < 400  # the long value is shown bounded
    assert [path for path in server.hits if path != "/registry.json"] == []  # no archive, no icon fetched
    assert tree(paths.data_dir()) == [] and config.read_text() == before


def test_a_registry_nested_too_deeply_is_a_clear_error_and_a_cached_copy_still_serves(
    server: RegistryServer, daemons: list[DaemonProcess]
) -> None:
    deep = b"[" * 200_000 + b"]" * 200_000
    url = server.url("/registry.json")
    server.files["/registry.json"] = deep
    write_config(registry=url)
    start(daemons, own_group=True)
    for command in (["agents", "search"], ["agents", "add", "demo-acp"]):
        result = cli(*command)
        assert result.returncode == 1, result
        assert result.stderr == (
            f"acp-tray: cannot read the registry: {url}: the registry document is nested too deeply to be read "
            "(and no copy is cached)\n"
        )
    server.publish(demo_binary(server, "1.0.0"))
    assert cli("agents", "search").returncode == 0  # now cached
    server.files["/registry.json"] = deep
    offline = cli("agents", "search", "demo")
    assert offline.returncode == 0 and "demo-acp" in offline.stdout, offline
    assert "offline, using the registry as fetched" in offline.stderr and "nested too deeply" in offline.stderr
    assert "Traceback" not in offline.stderr


# item 9: a download that drips --------------------------------------------------------------


def test_an_archive_that_drips_is_stopped_at_the_download_deadline(
    server: RegistryServer, daemons: list[DaemonProcess]
) -> None:
    """A byte every 0.5 s (the archive would take minutes) never trips the timeout for each read
    (60 s); the download's own deadline (an hour; 2 s here, set by short_deadline_acp_tray.py)
    stops it, in plain words, and nothing is installed or configured."""
    published = demo_binary(server, "1.0.0")
    config = write_config(registry=server.publish(published))
    before = config.read_text()
    assert len(server.files["/dl/demo-1.0.0.tar.gz"]) > 200
    server.drips["/dl/demo-1.0.0.tar.gz"] = Drip(0.5)
    start(daemons, own_group=True)
    result = subprocess.run(
        [sys.executable, str(HERE / "short_deadline_acp_tray.py"), "agents", "add", "demo-acp"],
        capture_output=True,
        text=True,
        env=cli_env(ACP_TRAY_TEST_DOWNLOAD_DEADLINE="2"),
        cwd=ROOT,
        timeout=60,
    )
    assert result.returncode == 1, result
    assert f"{server.url('/dl/demo-1.0.0.tar.gz')}: not done within 2 s; download stopped" in result.stderr
    assert "Traceback" not in result.stderr
    assert config.read_text() == before
    assert [p for p in tree(paths.data_dir()) if not p.endswith(("agents", "agents/demo-acp"))] == []


# item 9: Ctrl+C -----------------------------------------------------------------------------


@pytest.mark.parametrize("waiting_on", ["download", "daemon"])
def test_ctrl_c_while_agents_add_waits_exits_130(
    server: RegistryServer, daemons: list[DaemonProcess], waiting_on: str
) -> None:
    """Interrupted while the archive downloads (it drips), or while the daemon waits for the new
    agent to connect (it never answers): exit code 130, as for any command Ctrl+C ends, and no
    traceback; an interrupted download leaves nothing behind."""
    body = script("exec sleep 600") if waiting_on == "daemon" else None
    config = write_config(registry=server.publish(demo_binary(server, "1.0.0", body=body)))
    before = config.read_text()
    if waiting_on == "download":
        server.drips["/dl/demo-1.0.0.tar.gz"] = Drip(0.1)
    start(daemons, own_group=True)
    adding = cli_started("agents", "add", "demo-acp")
    try:
        if waiting_on == "download":
            until(lambda: server.hits.get("/dl/demo-1.0.0.tar.gz"), what="the download to start")
        else:
            assert adding.stdout is not None
            assert "waiting for it to connect" in adding.stdout.readline()
        adding.send_signal(signal.SIGINT)
        assert adding.wait(30) == 130
        assert adding.stderr is not None
        assert "Traceback" not in adding.stderr.read()
    finally:
        if adding.poll() is None:
            adding.kill()
            adding.wait()
    if waiting_on == "download":
        assert config.read_text() == before
        assert [p for p in tree(paths.data_dir()) if not p.endswith(("agents", "agents/demo-acp"))] == []
