"""An entry that lists both a binary and an npx package (kilo's shape): a binary that cannot be
downloaded falls back to the npx package, said as such, and `agents add ID --via npx|binary|uvx`
chooses. Against a real daemon, a real local registry server (the binary's archive answers 404)
and the real npm package the tests pin (codex-acp, run by npx from its cache)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from acp_tray.files import paths
from tests.support.config import write_config
from tests.support.daemons import DaemonProcess, cli, start
from tests.support.registry_server import RegistryServer, binary_distribution, entry, tree
from tests.support.repo import ROOT

pytestmark = pytest.mark.usefixtures("whole_groups")

MISSING = "/dl/kilo-linux.tar.gz"  # never published: the server answers 404


def _both(server: RegistryServer) -> tuple[dict[str, Any], str]:
    """A `kilo` entry with a binary for every platform (not downloadable) and the pinned codex-acp on npm."""
    version = json.loads((ROOT / "tests" / "real_agents" / "package.json").read_text())["dependencies"][
        "@zed-industries/codex-acp"
    ]
    distribution = {
        **binary_distribution(server, MISSING, "./kilo"),
        "npx": {"package": f"@zed-industries/codex-acp@{version}"},
    }
    return entry("kilo", version, distribution, name="Kilo"), version


def _served(server: RegistryServer, daemons: list[DaemonProcess]) -> tuple[Path, str]:
    """The registry serves `kilo`, a daemon runs: the preferences file, and the npm package's version."""
    document, version = _both(server)
    config = write_config(registry=server.publish(document))
    start(daemons, own_group=True)
    return config, version


def test_a_binary_that_cannot_be_downloaded_falls_back_to_npx_and_says_so(
    server: RegistryServer, daemons: list[DaemonProcess]
) -> None:
    config, version = _served(server, daemons)
    added = cli("agents", "add", "kilo", timeout=600)
    assert added.returncode == 0, added.stderr
    assert "its binary could not be downloaded" in added.stderr and "not found: the server answered 404" in added.stderr
    assert "it runs with npx instead" in added.stderr and "Traceback" not in added.stderr
    assert "kilo connected" in added.stdout and ", npx)" in added.stdout
    assert f'command = ["npx", "-y", "--", "@zed-industries/codex-acp@{version}"]' in config.read_text()
    assert [p for p in tree(paths.registry_agents_dir() / "kilo") if p != "install.json"] == []  # no binary left


def test_via_chooses_the_distribution_and_says_plainly_what_the_entry_offers(
    server: RegistryServer, daemons: list[DaemonProcess]
) -> None:
    config, version = _served(server, daemons)
    binary = cli("agents", "add", "kilo", "--via", "binary")  # the person's choice: no fallback
    assert binary.returncode == 1 and "not found: the server answered 404" in binary.stderr, binary.stderr
    assert "instead" not in binary.stderr and "[agents.kilo]" not in config.read_text()
    uvx = cli("agents", "add", "kilo", "--via=uvx")
    assert uvx.returncode == 1 and "offers no uvx package (it offers binary, npx)" in uvx.stderr, uvx.stderr
    wrong = cli("agents", "add", "kilo", "--via", "pip")
    assert wrong.returncode == 2 and "--via takes one of binary, npx, uvx" in wrong.stderr
    assert "Traceback" not in binary.stderr + uvx.stderr + wrong.stderr
    npx = cli("agents", "add", "kilo", "--via", "npx", timeout=600)
    assert npx.returncode == 0, npx.stderr
    assert "could not be downloaded" not in npx.stderr  # chosen, not fallen back to
    assert f'command = ["npx", "-y", "--", "@zed-industries/codex-acp@{version}"]' in config.read_text()
