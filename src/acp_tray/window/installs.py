"""Adding and upgrading agents from the registry while the page watches: each runs the shared
flow (registry/adding.py) on a thread of its own, off the pages' event loop, and records how far
it got (a download's bytes, fetching or connecting, the end) for the page's progress fragment."""

from __future__ import annotations

import secrets
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Literal

from acp_tray.registry import adding
from acp_tray.registry.adding import AddError
from acp_tray.registry.index import Entry, Registry, RegistryError
from acp_tray.registry.progress import megabytes

Phase = Literal["preparing", "downloading", "fetching", "connecting", "connected", "failed"]
KEPT = 20  # finished jobs remembered (a page reloaded while one ran still finds it)
RUNNERS = ("npx", "uvx")  # fetch the package when the agent first starts


@dataclass
class Job:
    """One add or upgrade; its fields are written by its thread only, read by the pages."""

    id: str
    agent: str
    action: Literal["add", "upgrade"]
    version: str
    phase: Phase = "preparing"
    size: int = 0
    total: int | None = None
    kind: str = ""  # binary, npx or uvx, once installed
    message: str = ""  # the end, in plain words
    ready: bool = False  # connected and with its session (not waiting for a sign-in)
    state: str = ""  # the daemon's word for an added agent at the end
    detail: str = ""  # and why it is not ready yet
    started: float = field(default_factory=time.monotonic)
    ended: float | None = None

    @property
    def running(self) -> bool:
        return self.phase not in ("connected", "failed")

    @property
    def percent(self) -> int | None:
        return min(100, self.size * 100 // self.total) if self.total else None

    @property
    def amount(self) -> str:
        """What has been downloaded, and of how much when that is known."""
        return f"{_size(self.size)} of {_size(self.total)}" if self.total else _size(self.size)

    def progress(self, size: int, total: int | None) -> None:
        self.phase, self.size, self.total = "downloading", size, total

    def handed_over(self, kind: str) -> None:
        self.kind = kind
        self.phase = "fetching" if kind in RUNNERS else "connecting"


def _size(size: int) -> str:
    return f"{size} bytes" if size < 1000 else megabytes(size)


class Installs:
    """The jobs of this window process, newest first."""

    def __init__(self) -> None:
        self._jobs: dict[str, Job] = {}
        self._lock = threading.Lock()

    def get(self, job_id: str) -> Job | None:
        return self._jobs.get(job_id)

    def all(self) -> list[Job]:
        return sorted(self._jobs.values(), key=lambda job: job.started, reverse=True)

    def running_for(self, agent: str) -> Job | None:
        return next((job for job in self._jobs.values() if job.agent == agent and job.running), None)

    def _new(self, agent: str, action: Literal["add", "upgrade"], version: str) -> Job:
        with self._lock:
            finished = [job for job in self.all() if not job.running][KEPT:]
            for old in finished:
                self._jobs.pop(old.id, None)
            job = Job(secrets.token_hex(8), agent, action, version)
            self._jobs[job.id] = job
        return job

    def add(self, entry: Entry) -> Job:
        """Start adding `entry` (one that does not connect is removed again, with its files)."""
        job = self._new(entry.id, "add", entry.version)

        def run() -> None:
            adding.refuse_configured(entry.id)
            done = adding.add(
                entry,
                progress=job.progress,
                on_added=lambda installed, _: job.handed_over(installed.kind),
                keep_unconnected=False,
            )
            job.ready, job.state, job.detail = done.state["ready"], done.state["state"], done.state["detail"]
            note = f" ({done.installed.note})" if done.installed.note else ""  # a binary fell back to npx
            job.message = f"{entry.id} {entry.version} connected{note}."

        _start(job, run)
        return job

    def upgrade(self, name: str, registry: Registry) -> Job:
        """Start moving `name` to the registry's current version (rolled back if it does not connect)."""
        old = adding.upgradable(name)
        entry = registry.find(old.id)
        job = self._new(name, "upgrade", entry.version)

        def run() -> None:
            result = adding.upgrade(
                name, old, entry, progress=job.progress, on_installed=lambda: job.handed_over(old.kind)
            )
            if not result.ok:
                raise AddError(result.message)
            job.ready, job.message = True, result.message

        _start(job, run)
        return job


def _start(job: Job, work: Callable[[], None]) -> None:
    def run() -> None:
        try:
            work()
        except (AddError, RegistryError) as exc:
            job.phase, job.message = "failed", str(exc)
        except Exception as exc:  # never a job that spins for ever on the page
            job.phase, job.message = "failed", f"{type(exc).__name__}: {exc}"
        else:
            job.phase = "connected"
        job.ended = time.monotonic()

    # a daemon thread: a download in progress does not hold the window open when it ends
    threading.Thread(target=run, name=f"acp-tray-install-{job.agent}", daemon=True).start()
