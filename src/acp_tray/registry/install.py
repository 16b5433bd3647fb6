"""From a registry entry to the command that runs the agent.

`npx`/`uvx` entries become a pinned command (`npx -y -- PKG@VERSION ARGS…`, `uvx -- PKG@VERSION ARGS…`;
with a `cmd`, the program the package installs: `npx -y --package PKG@VERSION -- CMD ARGS…`,
`uvx --from PKG==VERSION -- CMD ARGS…`): after `--` neither the package nor its arguments can be
options of npx or uvx themselves, and the package and the program are checked names;
`binary` entries are downloaded for this platform, unpacked into `ROOT/ID/VERSION/` and run from
there. What was installed is remembered in `ROOT/ID/install.json` (for `agents upgrade`).
Preference when an entry offers several: a binary for this platform, then npx, then uvx; a binary
that cannot be downloaded or unpacked falls back to the entry's npx (or uvx) package, and says so
(`Installed.note`). `via` (`agents add ID --via npx|binary|uvx`) takes the one named, or says why not.
"""

from __future__ import annotations

import json
import os
import platform
import shutil
import stat
import sys
import tempfile
from dataclasses import asdict, replace
from pathlib import Path

from acp_tray.files.atomic import write_atomically
from acp_tray.files.paths import AGENT_ICON
from acp_tray.registry.extract import ArchiveError, unpack
from acp_tray.registry.fields import cmd_parts, pinned, pinned_from
from acp_tray.registry.index import BinaryTarget, Entry, Package, RegistryError
from acp_tray.registry.installed import RECORD, Installed, agent_dir
from acp_tray.registry.transfer import Progress, TransferError, fetch

MAX_ARCHIVE_BYTES = 1024 * 1024 * 1024
MAX_ICON_BYTES = 256 * 1024
DOWNLOAD_TIMEOUT = 60.0  # per read
DOWNLOAD_DEADLINE = 3600.0  # the whole archive (at most MAX_ARCHIVE_BYTES)
ICON_DEADLINE = 30.0
KINDS = ("binary", "npx", "uvx")
RUNNERS = {
    "npx": "npx comes with Node.js: install Node.js (https://nodejs.org, or your system's `nodejs`/`npm` package)",
    "uvx": "uvx comes with uv: install uv (https://docs.astral.sh/uv/, or `pipx install uv`)",
}


def platform_id() -> str | None:
    """This machine in the registry's terms (`linux-x86_64`, `darwin-aarch64`, …)."""
    system = {"linux": "linux", "darwin": "darwin", "win32": "windows"}.get(sys.platform)
    machine = platform.machine().lower()
    arch = {"x86_64": "x86_64", "amd64": "x86_64", "aarch64": "aarch64", "arm64": "aarch64"}.get(machine)
    return f"{system}-{arch}" if system and arch else None


def _runner(kind: str, entry: Entry) -> Installed | None:
    """`entry`'s `kind` package as a pinned command (None: `kind` is not installed here)."""
    package: Package | None = getattr(entry, kind)
    if package is None or shutil.which(kind) is None:
        return None
    options = ["-y"] if kind == "npx" else []  # npx: install without asking (there is no one to ask)
    version = entry.version
    if package.cmd is None:
        run = [*options, "--", pinned(kind, package.package, version)]
    elif kind == "npx":
        run = [*options, "--package", pinned(kind, package.package, version), "--", package.cmd]
    else:
        run = ["--from", pinned_from(package.package, version), "--", package.cmd]
    return Installed(entry.id, version, kind, [kind, *run, *package.args], dict(package.env))


def _private_home(root: Path, agent_id: str) -> Path:
    """`ROOT/ID`, created owner-only (and ROOT, and the data dir above it, when they are new)."""
    home = agent_dir(root, agent_id)
    for directory in (root.parent, root, home):
        directory.mkdir(mode=0o700, parents=True, exist_ok=True)
    return home


def install(entry: Entry, root: Path, *, progress: Progress | None = None, via: str | None = None) -> Installed:
    """Make `entry` (as `parse_entry` read it) runnable here, as `via` says (default: as it prefers,
    a binary that cannot be had falling back to a package runner); RegistryError says why it cannot
    be, and what to install."""
    here = platform_id()
    if via is not None:
        return _as_chosen(entry, root, progress, via, here)
    if here is None or here not in entry.binary:
        return _with_runner(entry, _no_build(entry, here))
    try:
        return _install_binary(entry, here, root, progress)
    except RegistryError as exc:
        runner = next((r for r in (_runner("npx", entry), _runner("uvx", entry)) if r is not None), None)
        if runner is None:
            raise
        why = f"its binary could not be downloaded ({exc}); it runs with {runner.kind} instead"
        return replace(runner, note=why)


def _as_chosen(entry: Entry, root: Path, progress: Progress | None, via: str, here: str | None) -> Installed:
    """`--via KIND`: that distribution or a RegistryError that says what the entry offers."""
    offered = ", ".join(entry.kinds)
    if via not in KINDS:
        raise RegistryError(f"--via takes one of {', '.join(KINDS)}, not {via!r}")
    if via == "binary":
        if here is None or here not in entry.binary:
            also = f"; it offers {offered}" if entry.kinds != ["binary"] else ""
            raise RegistryError(_no_build(entry, here) + also)
        return _install_binary(entry, here, root, progress)
    if getattr(entry, via) is None:
        raise RegistryError(f"{entry.id} {entry.version} offers no {via} package (it offers {offered})")
    installed = _runner(via, entry)
    if installed is None:
        raise RegistryError(f"{entry.id} runs with {via}, which is not installed: {RUNNERS[via]}")
    return installed


def _no_build(entry: Entry, here: str | None) -> str:
    platforms = ", ".join(sorted(entry.binary)) or "none"
    return f"{entry.id} has no build for {here or sys.platform} (only {platforms})"


def _with_runner(entry: Entry, no_build: str) -> Installed:
    """The first package runner the entry names that is installed here (npx, then uvx)."""
    for kind in ("npx", "uvx"):
        if (found := _runner(kind, entry)) is not None:
            return found
    needs = [RUNNERS[kind] for kind in ("npx", "uvx") if getattr(entry, kind) is not None]
    if not needs:
        raise RegistryError(no_build)
    raise RegistryError(
        f"{entry.id} runs with {' or '.join(k for k in ('npx', 'uvx') if getattr(entry, k))}, "
        f"which is not installed: {'; or '.join(needs)}"
    )


def _install_binary(entry: Entry, here: str, root: Path, progress: Progress | None) -> Installed:
    target = entry.binary[here]
    relative = cmd_parts(target.cmd)  # checked when the registry was read
    home = agent_dir(root, entry.id)
    directory = home / entry.version
    program = directory.joinpath(*relative)
    if not program.is_file():  # not there yet (a directory without it is an earlier, broken attempt)
        fresh = not home.exists()
        _private_home(root, entry.id)
        shutil.rmtree(directory, ignore_errors=True)
        try:
            _download(entry, target, directory, home, progress)
        except BaseException:
            if fresh:  # nothing left behind: the agent is not added
                shutil.rmtree(home, ignore_errors=True)
            raise
    program.chmod(program.stat().st_mode | stat.S_IXUSR)
    return Installed(entry.id, entry.version, "binary", [str(program), *target.args], dict(target.env), str(directory))


def _download(entry: Entry, target: BinaryTarget, directory: Path, home: Path, progress: Progress | None) -> None:
    """`target`'s archive downloaded and unpacked into `directory` (whole, or not at all)."""
    relative = cmd_parts(target.cmd)
    with tempfile.TemporaryDirectory(dir=home, prefix=".download-") as work:
        archive = Path(work) / "archive"
        try:
            with archive.open("wb") as sink:
                fetch(
                    target.archive,
                    timeout=DOWNLOAD_TIMEOUT,
                    deadline=DOWNLOAD_DEADLINE,
                    limit=MAX_ARCHIVE_BYTES,
                    progress=progress,
                    sink=sink,
                )
            staged = Path(work) / "unpacked"
            unpack(archive, staged, url=target.archive)
        except (TransferError, ArchiveError) as exc:
            raise RegistryError(f"{entry.id} {entry.version}: {exc}") from None
        if not staged.joinpath(*relative).is_file():
            raise RegistryError(f"{entry.id} {entry.version}: the archive has no {target.cmd!r}; not installed")
        os.replace(staged, directory)


def fetch_icon(entry: Entry, root: Path) -> Path | None:
    """The entry's SVG icon, kept beside its install record; None when it has none or it cannot be had."""
    if entry.icon is None:
        return None
    return download_icon(entry.icon, _private_home(root, entry.id) / AGENT_ICON)


def download_icon(url: str, path: Path) -> Path | None:
    """An icon at `url` written to `path` (owner-only, whole or not at all; bounded in size and
    time); None when it cannot be had."""
    partial = path.with_name(f".{path.name}.partial")
    try:
        with partial.open("wb") as sink:
            fetch(url, timeout=DOWNLOAD_TIMEOUT, deadline=ICON_DEADLINE, limit=MAX_ICON_BYTES, sink=sink)
        os.chmod(partial, 0o600)
        os.replace(partial, path)
    except (TransferError, OSError):
        partial.unlink(missing_ok=True)
        return None
    return path


def remember(installed: Installed, root: Path) -> None:
    home = _private_home(root, installed.id)
    write_atomically(home / RECORD, json.dumps(asdict(installed), indent=1) + "\n", mode=0o600)


def forget(agent_id: str, root: Path) -> None:
    """The record of `agent_id`'s install gone (an add the daemon refused)."""
    (agent_dir(root, agent_id) / RECORD).unlink(missing_ok=True)


def forget_version(installed: Installed) -> None:
    """Remove a binary version's directory (after an upgrade connected, or a failed one)."""
    if installed.directory is not None:
        shutil.rmtree(installed.directory, ignore_errors=True)
