"""The registry document (registry.json, the format of the registry's FORMAT.md): fetched with a
timeout, cached with its fetch time in the cache dir, read from that cache when offline, parsed
into entries (a malformed entry is skipped and said, never the whole document), and searched.
"""

from __future__ import annotations

import hashlib
import io
import json
import os
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urljoin

from acp_tray.files.atomic import write_atomically
from acp_tray.logs.text import NAME_LIMIT, plain_line
from acp_tray.prefs.command_rules import command_problem, env_problem, text_problem
from acp_tray.registry.fields import cmd_parts, id_problem, package_problem, program_problem, version_problem
from acp_tray.registry.transfer import TransferError, fetch

FETCH_TIMEOUT = 15.0  # per read
FETCH_DEADLINE = 120.0  # the whole document
MAX_DOCUMENT_BYTES = 8 * 1024 * 1024
PLATFORMS = ("darwin-aarch64", "darwin-x86_64", "linux-aarch64", "linux-x86_64", "windows-aarch64", "windows-x86_64")


class RegistryError(Exception):
    """The registry could not be read or has no such agent; `str()` is the whole message."""


@dataclass(frozen=True)
class Package:
    """An `npx` or `uvx` distribution."""

    package: str
    args: tuple[str, ...] = ()
    env: dict[str, str] = field(default_factory=dict)
    cmd: str | None = None  # the program to run when it is not named as the package


@dataclass(frozen=True)
class BinaryTarget:
    archive: str
    cmd: str
    args: tuple[str, ...] = ()
    env: dict[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class Entry:
    id: str
    name: str
    version: str
    description: str
    icon: str | None = None  # an absolute URL
    npx: Package | None = None
    uvx: Package | None = None
    binary: dict[str, BinaryTarget] = field(default_factory=dict)

    @property
    def kinds(self) -> list[str]:
        return [kind for kind in ("binary", "npx", "uvx") if getattr(self, kind)]


@dataclass(frozen=True)
class Skipped:
    """A malformed entry, left out of the registry: its id (when it has one) and why."""

    id: str | None
    number: int  # its place in the document, from 1
    reason: str

    def __str__(self) -> str:
        return f"agent {plain_line(self.id, NAME_LIMIT) if self.id else f'#{self.number}'}: {self.reason}"


@dataclass(frozen=True)
class Registry:
    url: str
    entries: tuple[Entry, ...]
    fetched: float  # when the document was fetched (epoch seconds)
    offline: str | None = None  # why the cached copy is used; None: fetched just now
    skipped: tuple[Skipped, ...] = ()  # malformed entries, each with its reason

    def find(self, agent_id: str) -> Entry:
        for entry in self.entries:
            if entry.id == agent_id:
                return entry
        for skipped in self.skipped:
            if skipped.id == agent_id:
                raise RegistryError(f"the registry's entry for {skipped}; not installed")
        near = [e.id for e in self.search(agent_id.replace("-", " ").split())][:5]
        hint = f"; did you mean {', '.join(near)}?" if near else "; `acp-tray agents search` lists them"
        raise RegistryError(f"no agent {agent_id!r} in the registry at {self.url}{hint}")

    def search(self, words: list[str]) -> list[Entry]:
        """Entries whose id, name or description contains every word (case-insensitive)."""
        wanted = [w.lower() for w in words]
        return [
            entry
            for entry in self.entries
            if all(w in f"{entry.id} {entry.name} {entry.description}".lower() for w in wanted)
        ]


def age(seconds: float) -> str:
    seconds = max(0, int(seconds))
    if seconds < 120:
        return f"{seconds} s"
    if seconds < 7200:
        return f"{seconds // 60} min"
    if seconds < 2 * 86400:
        return f"{seconds // 3600} h"
    return f"{seconds // 86400} days"


# parsing ------------------------------------------------------------------------------------


def _strings(value: object, what: str) -> tuple[str, ...]:
    if value is None:
        return ()
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ValueError(f"{what} must be a list of strings")
    if problem := command_problem(value, args_only=True):  # the rule the preferences keep
        raise ValueError(f"{what}: {problem}")
    return tuple(value)


def _env(value: object, what: str) -> dict[str, str]:
    if value is None:
        return {}
    if not isinstance(value, dict) or not all(isinstance(k, str) and isinstance(v, str) for k, v in value.items()):
        raise ValueError(f"{what} must be a table of strings")
    if problem := env_problem(value):
        raise ValueError(f"{what}: {problem}")
    return dict(value)


def _text(data: dict[str, Any], key: str) -> str:
    value = data.get(key)
    if not isinstance(value, str) or not value.strip():
        raise ValueError(f"{key!r} must be a non-empty string")
    if problem := text_problem(value):
        raise ValueError(f"{key!r}: {problem}")
    return value


def _checked(problem: str | None) -> None:
    if problem is not None:
        raise ValueError(problem)


def _package(data: object, kind: str) -> Package:
    if not isinstance(data, dict):
        raise ValueError(f"distribution.{kind} must be a table")
    package = _text(data, "package")
    _checked(package_problem(kind, package))
    cmd = _text(data, "cmd") if "cmd" in data else None
    if cmd is not None:
        _checked(program_problem(kind, cmd))
    return Package(package, _strings(data.get("args"), f"{kind}.args"), _env(data.get("env"), kind), cmd)


def _binary(data: object) -> dict[str, BinaryTarget]:
    if not isinstance(data, dict):
        raise ValueError("distribution.binary must be a table")
    targets = {}
    for platform, target in data.items():
        if platform not in PLATFORMS or not isinstance(target, dict):
            continue  # a platform added after this acp-tray: not ours anyway
        cmd = _text(target, "cmd")
        cmd_parts(cmd)  # ValueError: not a file inside its own directory
        targets[platform] = BinaryTarget(
            _text(target, "archive"),
            cmd,
            _strings(target.get("args"), f"binary.{platform}.args"),
            _env(target.get("env"), f"binary.{platform}.env"),
        )
    return targets


def parse_entry(data: object, base_url: str) -> Entry:
    """One agent entry; ValueError says what is wrong with it."""
    if not isinstance(data, dict):
        raise ValueError("an entry must be a table")
    distribution = data.get("distribution")
    if not isinstance(distribution, dict):
        raise ValueError("'distribution' must be a table")
    agent_id, version = _text(data, "id"), _text(data, "version")
    _checked(id_problem(agent_id))
    _checked(version_problem(version))
    icon = data.get("icon")
    entry = Entry(
        id=agent_id,
        name=_text(data, "name"),
        version=version,
        description=_text(data, "description"),
        icon=urljoin(base_url, icon) if isinstance(icon, str) and icon else None,
        npx=_package(distribution["npx"], "npx") if "npx" in distribution else None,
        uvx=_package(distribution["uvx"], "uvx") if "uvx" in distribution else None,
        binary=_binary(distribution["binary"]) if "binary" in distribution else {},
    )
    if not entry.kinds:
        raise ValueError("no distribution acp-tray knows (binary, npx, uvx)")
    return entry


def parse_document(data: object, url: str) -> tuple[tuple[Entry, ...], tuple[Skipped, ...]]:
    if not isinstance(data, dict) or not isinstance(data.get("agents"), list):
        raise RegistryError(f"{url}: not a registry document (no 'agents' list)")
    entries, skipped = [], []
    for number, item in enumerate(data["agents"], start=1):
        try:
            entries.append(parse_entry(item, url))
        except ValueError as exc:
            name = item.get("id") if isinstance(item, dict) else None
            skipped.append(Skipped(name if isinstance(name, str) and name else None, number, str(exc)))
    return tuple(entries), tuple(skipped)


# fetching and the cache ---------------------------------------------------------------------


def cache_file(cache_dir: Path, url: str) -> Path:
    """One cached document per registry URL (a company's registry does not replace the official one)."""
    return cache_dir / "registry" / f"{hashlib.sha256(url.encode()).hexdigest()[:16]}.json"


def _store(path: Path, url: str, document: object, fetched: float) -> None:
    for directory in (path.parent.parent, path.parent):  # the cache dir, and its registry/
        directory.mkdir(mode=0o700, parents=True, exist_ok=True)
    os.chmod(path.parent, 0o700)
    record = {"url": url, "fetched": fetched, "document": document}
    write_atomically(path, json.dumps(record), mode=0o600)


def _decoded(data: bytes) -> object:
    """JSON; ValueError says why not (also for nesting deeper than Python's parser goes)."""
    try:
        return json.loads(data.decode("utf-8"))
    except RecursionError:
        raise ValueError("the registry document is nested too deeply to be read") from None
    except ValueError as exc:
        raise ValueError(f"not JSON ({exc})") from None


def _cached(path: Path, url: str) -> tuple[object, float] | None:
    try:
        record = _decoded(path.read_bytes())
    except (OSError, ValueError):
        return None
    if not isinstance(record, dict) or record.get("url") != url or not isinstance(record.get("fetched"), int | float):
        return None
    return record.get("document"), float(record["fetched"])


def load(url: str, cache_dir: Path, *, timeout: float = FETCH_TIMEOUT) -> Registry:
    """The registry at `url`: fetched now (and cached), or the cached copy when that fails."""
    path = cache_file(cache_dir, url)
    buffer = io.BytesIO()
    try:
        fetch(url, timeout=timeout, deadline=FETCH_DEADLINE, limit=MAX_DOCUMENT_BYTES, sink=buffer)
        document = _decoded(buffer.getvalue())
    except (TransferError, ValueError) as exc:
        reason = str(exc) if isinstance(exc, TransferError) else f"{url}: {exc}"
        cached = _cached(path, url)
        if cached is None:
            raise RegistryError(f"cannot read the registry: {reason} (and no copy is cached)") from None
        document, fetched = cached
        entries, skipped = parse_document(document, url)
        return Registry(url, entries, fetched, offline=reason, skipped=skipped)
    entries, skipped = parse_document(document, url)  # a document we cannot read is not cached
    fetched = time.time()
    _store(path, url, document, fetched)
    return Registry(url, entries, fetched, skipped=skipped)
