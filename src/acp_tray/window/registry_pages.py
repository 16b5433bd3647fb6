"""The agents page's ACP Registry part: searching the registry (read once a minute at most, on a
thread; offline, its cached copy with its age), its icons shown as PNGs acp-tray drew, and adding or
upgrading an agent with the progress polled by the page while it runs."""

from __future__ import annotations

import asyncio
import hashlib
import time
from dataclasses import dataclass
from pathlib import Path

from starlette.requests import Request
from starlette.responses import HTMLResponse, Response

from acp_tray.control import api
from acp_tray.control.replies import PrefsFormReply
from acp_tray.files import paths
from acp_tray.local_time import now
from acp_tray.logs.text import DESCRIPTION_LIMIT, NAME_LIMIT, plain_line
from acp_tray.prefs.urls import DEFAULT_URL
from acp_tray.registry import adding
from acp_tray.registry.adding import AddError
from acp_tray.registry.fields import id_problem
from acp_tray.registry.index import Entry, Registry, RegistryError, age
from acp_tray.registry.install import download_icon
from acp_tray.window import views
from acp_tray.window.daemon_calls import CallFailedError, ask
from acp_tray.window.feed import Feed
from acp_tray.window.icon_images import IconImages
from acp_tray.window.installs import Installs, Job
from acp_tray.window.render import Renderer

FRESH_FOR = 60.0  # seconds a registry read is reused for
SHOWN = 50  # search results on the page
CATCH_UP = 5.0  # seconds a finished job's fragment waits for the daemon's state of its agent


@dataclass(frozen=True)
class EntryView:
    id: str
    name: str
    version: str
    description: str
    kinds: str
    icon: bool
    added: bool


class RegistryReader:
    """The registry as the window last read it (the `registry` preference's URL)."""

    def __init__(self) -> None:
        self._lock = asyncio.Lock()
        self._read_at = 0.0
        self._latest: Registry | AddError | None = None

    @property
    def latest(self) -> Registry | None:
        return self._latest if isinstance(self._latest, Registry) else None

    async def read(self) -> Registry:
        """The registry (AddError: it cannot be read and no copy is cached)."""
        async with self._lock:
            if self._latest is None or time.monotonic() - self._read_at > FRESH_FOR:
                try:
                    form = await ask(api.PREFS_GET, api.Args())
                    self._latest = await asyncio.to_thread(_read, form)
                except CallFailedError as exc:  # said where the registry's results go, and kept a minute
                    self._latest = AddError(str(exc))
                except AddError as exc:
                    self._latest = exc
                self._read_at = time.monotonic()
            if isinstance(self._latest, AddError):
                raise self._latest
            return self._latest


def _read(form: PrefsFormReply) -> Registry:
    """The registry at the `registry` preference as the daemon reads the preferences file (this process
    does not load the file's model for one setting); AddError with the file's problem when it cannot
    be read."""
    path = form["path"]
    url = DEFAULT_URL
    if path is not None and Path(path).exists():
        if form["problem"] is not None:
            raise AddError(form["problem"])
        url = str(form["values"].get("registry", DEFAULT_URL))
    return adding.read_registry(url)


def icon_file(url: str) -> Path:
    """Where the window keeps the registry's icon at `url` (an entry not added yet has no folder;
    a new icon has a new URL)."""
    return paths.cache_dir() / "registry" / "icons" / f"{hashlib.sha256(url.encode()).hexdigest()[:16]}.svg"


class RegistryPages:
    def __init__(
        self, feed: Feed, render: Renderer, reader: RegistryReader, installs: Installs, icons: IconImages
    ) -> None:
        self._feed = feed
        self._render = render
        self._reader = reader
        self._installs = installs
        self._icons = icons
        self._no_icon: set[str] = set()  # icons that could not be had: not asked for again

    async def search(self, request: Request) -> Response:
        words = request.query_params.get("q", "")[:200].split()
        try:
            registry = await self._reader.read()
        except AddError as exc:
            return self._render.part(request, "_registry_results.html", problem=str(exc), note="", results=[], more=0)
        configured = {row["name"] for row in self._feed.state.get("agents", [])}
        found = registry.search(words)
        results = [_entry_view(entry, configured) for entry in found[:SHOWN]]
        note = _offline(registry)
        if not found:
            note = f"{note} Nothing in the registry matches “{' '.join(words)}”.".strip() if words else note
        more = max(0, len(found) - SHOWN)
        return self._render.part(request, "_registry_results.html", problem="", note=note, results=results, more=more)

    async def icon(self, request: Request) -> Response:
        """The entry's icon as a PNG (the grey disc without one)."""
        return await self._icons.response(await self._icon_svg(request.path_params["id"]))

    async def _icon_svg(self, agent_id: str) -> Path | None:
        """The entry's SVG, downloaded once into the cache; None without one."""
        registry = self._reader.latest
        if id_problem(agent_id) is not None or registry is None:
            return None
        try:
            entry = registry.find(agent_id)
        except RegistryError:
            return None
        if entry.icon is None:
            return None
        path = icon_file(entry.icon)
        if not path.is_file() and entry.icon not in self._no_icon:
            path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
            if await asyncio.to_thread(download_icon, entry.icon, path) is None:
                self._no_icon.add(entry.icon)
        return path if path.is_file() else None

    async def add(self, request: Request) -> Response:
        agent_id = request.path_params["id"]
        try:
            entry = (await self._reader.read()).find(agent_id)
        except (AddError, RegistryError) as exc:
            return self._render.part(request, "_install_job.html", job=None, problem=str(exc), signin=[], polled=False)
        job = self._installs.running_for(entry.id) or self._installs.add(entry)
        return self._job(request, job)

    async def upgrade(self, request: Request) -> Response:
        name = request.path_params["name"]
        try:
            job = self._installs.running_for(name) or self._installs.upgrade(name, await self._reader.read())
        except (AddError, RegistryError) as exc:
            return self._render.part(request, "_install_job.html", job=None, problem=str(exc), signin=[], polled=False)
        return self._job(request, job)

    async def job(self, request: Request) -> Response:
        job = self._installs.get(request.path_params["job"])
        if job is None:
            return HTMLResponse("")
        return self._job(request, job)

    async def jobs(self, request: Request) -> Response:
        """Every job of this window (a page opened while one runs shows it)."""
        parts = [self._job_html(request, job)[0] for job in self._installs.all()]
        return HTMLResponse("".join(parts))

    def _job(self, request: Request, job: Job) -> Response:
        html, polled = self._job_html(request, job)
        response = HTMLResponse(html)
        if not polled:  # the last poll: the page's agent list and its management part catch up
            response.headers["HX-Trigger"] = "agents-changed"
        return response

    def _job_html(self, request: Request, job: Job) -> tuple[str, bool]:
        """The job's fragment, and whether the page asks for it again: while it runs, and for a
        moment after, until the daemon's state for the agent (what sign-in it needs) is here."""
        row = next((r for r in self._feed.state.get("agents", []) if r["name"] == job.agent), None)
        agent = views.agent_view(row, now()) if row is not None and not job.running else None
        behind = job.phase == "connected" and bool(job.state) and (agent is None or agent.state != job.state)
        polled = job.running or (behind and time.monotonic() - (job.ended or 0.0) < CATCH_UP)
        context = {"job": job, "problem": "", "signin": agent.sign_in if agent else [], "polled": polled}
        return self._render.html(request, "_install_job.html", **context), polled


def _offline(registry: Registry) -> str:
    if registry.offline is None:
        return ""
    return (
        f"Offline: the registry could not be read just now ({registry.offline}). "
        f"This is the copy fetched {age(time.time() - registry.fetched)} ago."
    )


def _entry_view(entry: Entry, configured: set[str]) -> EntryView:
    return EntryView(
        id=entry.id,
        name=plain_line(entry.name, NAME_LIMIT),
        version=plain_line(entry.version, 40),
        description=plain_line(entry.description, DESCRIPTION_LIMIT),
        kinds=", ".join(entry.kinds),
        icon=entry.icon is not None,
        added=entry.id in configured,
    )
