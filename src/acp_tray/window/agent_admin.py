"""The agents page's management part: adding an agent of one's own (checked field by field, its
secret kept first, then added, waited for, and kept stopped, with its reason, when it does not
connect), and for each agent its new command, working directory and environment, its upgrade
(when the registry has a newer version), its removal (the confirmation says what is deleted and
how much that frees, before) and its secrets by name (set or delete; a value is never sent back)."""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import shlex
from collections.abc import Awaitable
from dataclasses import dataclass

from starlette.requests import Request
from starlette.responses import Response

from acp_tray.control import api
from acp_tray.demo import DEMO_AGENT_NAME
from acp_tray.demo.removal import demo_alongside
from acp_tray.files import paths
from acp_tray.prefs.names import agent_name_problem
from acp_tray.registry import adding
from acp_tray.registry.adding import AddError
from acp_tray.registry.index import Registry, RegistryError
from acp_tray.registry.installed import installed_size, recall
from acp_tray.registry.progress import megabytes
from acp_tray.state.secrets import SecretError, SecretNames, variable_problem
from acp_tray.window import custom_agent
from acp_tray.window.daemon_calls import CallFailedError, ask
from acp_tray.window.feed import Feed
from acp_tray.window.icon_images import IconImages
from acp_tray.window.registry_pages import RegistryReader
from acp_tray.window.render import Renderer

CHANGED = {"HX-Trigger": "agents-changed"}  # the page's parts that list agents fetch themselves again
LISTED = {"HX-Trigger": "agents-listed"}  # the answer is the new list: the registry's part catches up


@dataclass(frozen=True)
class ManagedAgent:
    name: str
    target: str
    command: str  # a local agent's, as a shell line to edit ("" for a remote agent)
    cwd: str
    env_names: list[str]
    version: str  # "" for an agent not added from the registry
    upgrade_to: str  # the registry's newer version, or ""
    icon: bool
    secrets: list[str]


@dataclass(frozen=True)
class Removal:
    name: str
    files: str  # where its installed files are, or ""
    size: str  # how much deleting them frees, or ""
    secrets: list[str]


def _newer(registry: Registry | None, agent_id: str, version: str) -> str:
    if registry is None:
        return ""
    try:
        current = registry.find(agent_id).version
    except RegistryError:
        return ""
    return current if current != version else ""


def _secret_names() -> SecretNames:
    return SecretNames(paths.secret_names_file())


class AgentAdmin:
    def __init__(self, feed: Feed, render: Renderer, reader: RegistryReader, icons: IconImages) -> None:
        self._feed = feed
        self._render = render
        self._reader = reader
        self._icons = icons

    def _names(self) -> list[str]:
        return [row["name"] for row in self._feed.state.get("agents", [])]

    async def manage(self, request: Request, *, notice: str = "", problem: str = "") -> Response:
        """The agents with what can be done to each (GET /manage, and the answer of each change).
        `?shown=SIGNATURE`: the page shows that list already; nothing to swap (204) if it is the same,
        else the new list, and the registry's part catches up (its "Added" marks)."""
        rows = await self._rows()
        signature = hashlib.sha256(repr(rows).encode()).hexdigest()[:16]
        if not notice and not problem and request.query_params.get("shown") == signature:
            return Response(status_code=204)
        changed_elsewhere = "shown" in request.query_params  # by the CLI, the tray, another page
        headers = LISTED if (notice and not problem) or changed_elsewhere else None
        context: dict[str, object] = {"rows": rows, "signature": signature, "notice": notice, "problem": problem}
        context |= {"demo": DEMO_AGENT_NAME, "demo_alongside": demo_alongside([row.name for row in rows])}
        return self._render.part(request, "_agent_manage_list.html", headers=headers, **context)

    async def _rows(self) -> list[ManagedAgent]:
        try:
            registry: Registry | None = await self._reader.read()
        except AddError:
            registry = None  # no upgrades offered; the registry part says why
        names = _secret_names()
        root = paths.registry_agents_dir()
        rows = []
        for row in self._feed.state.get("agents", []):
            installed = recall(row["name"], root)
            version = installed.version if installed is not None else ""
            rows.append(
                ManagedAgent(
                    name=row["name"],
                    target=row["target"],
                    command=shlex.join(row["command"]),
                    cwd=row["cwd"],
                    env_names=row["env_names"],
                    version=version,
                    upgrade_to=_newer(registry, installed.id, version) if installed is not None else "",
                    icon=paths.agent_icon(row["name"]).is_file(),
                    secrets=names.of(row["name"]),
                )
            )
        return rows

    async def icon(self, request: Request) -> Response:
        """The agent's icon (kept by `agents add`) as a PNG; the grey disc without one."""
        name = request.path_params["name"]
        return await self._icons.response(paths.agent_icon(name) if agent_name_problem(name) is None else None)

    # an agent of one's own -------------------------------------------------------------------

    async def custom(self, request: Request) -> Response:
        form = {key: str(value) for key, value in (await request.form()).items()}
        checked = custom_agent.check(form, set(self._names()))
        if checked.request is None:
            return self._form(request, checked.values, checked.errors)
        args = checked.request
        what = args.command[0] if args.command is not None else str(args.url)
        if checked.secret is not None:  # in the keyring before its first start
            try:
                await asyncio.to_thread(_secret_names().store, args.name, *checked.secret)
            except SecretError as exc:
                return self._form(request, checked.values, {"secret_var": str(exc)})
        try:
            await ask(api.AGENTS_ADD, args)
            state = await asyncio.to_thread(adding.wait_connected, args.name, args.command)
        except (CallFailedError, AddError) as exc:
            if checked.secret is not None:  # not added: nothing of it is left in the keyring either
                with contextlib.suppress(SecretError):
                    await asyncio.to_thread(_secret_names().delete, args.name, checked.secret[0])
            field = "name" if "already configured" in str(exc) else "command" if args.command else "url"
            return self._form(request, checked.values, {field: str(exc)})
        if not state["connected"]:  # kept, stopped, with its reason: its command can be changed below
            with contextlib.suppress(CallFailedError):  # stopped already
                await ask(api.AGENTS_STOP, api.NameArgs(args.name))
            problem = custom_agent.kept_problem(args.name, custom_agent.connect_problem(state, what))
            return self._form(request, {}, {}, problem=problem, headers=CHANGED)
        done = f"{args.name} added and connected" + ("" if state["ready"] else f"; {state['detail'] or state['state']}")
        return self._form(request, {}, {}, done=done, headers=CHANGED)

    def _form(
        self,
        request: Request,
        values: dict[str, str],
        errors: dict[str, str],
        *,
        done: str = "",
        problem: str = "",
        headers: dict[str, str] | None = None,
    ) -> Response:
        context = custom_agent.form(values, errors, done, problem)
        return self._render.part(request, "_custom_agent_fields.html", headers=headers, **context)

    async def edit(self, request: Request) -> Response:
        """An agent's new command, working directory and environment: it starts again with them."""
        name = request.path_params["name"]
        row = next((row for row in self._feed.state.get("agents", []) if row["name"] == name), None)
        if row is None or not row["command"]:
            return await self.manage(request, problem=f"There is no agent called {name!r} run by a command.")
        form = {key: str(value) for key, value in (await request.form()).items()}
        edited = custom_agent.check_edit(name, form, row["cwd"])
        if edited.request is None:
            problem = " ".join(edited.errors.values())
            return await self.manage(request, problem=f"Nothing was changed for {name}: {problem}")

        def unchanged(message: str) -> Awaitable[Response]:
            return self.manage(request, problem=f"Nothing was changed for {name}: {message}")

        await ask(api.AGENTS_REPLACE, edited.request, answer=unchanged)
        await ask(api.AGENTS_START, api.NameArgs(name), answer=unchanged)  # kept stopped after it did not connect
        return await self.manage(request, notice=f"{name} changed; it starts again with its new settings.")

    # removal ---------------------------------------------------------------------------------

    async def confirm_remove(self, request: Request) -> Response:
        name = request.path_params["name"]
        if name not in self._names():
            return await self.manage(request, problem=f"There is no agent called {name!r}.")
        root = paths.registry_agents_dir()
        size = await asyncio.to_thread(installed_size, name, root)
        removal = Removal(
            name=name,
            files=str(root / name) if size is not None else "",
            size=megabytes(size) if size is not None else "",
            secrets=_secret_names().of(name),
        )
        return self._render.part(request, "_remove_confirm.html", removal=removal)

    async def remove(self, request: Request) -> Response:
        name = request.path_params["name"]
        result = await ask(
            api.AGENTS_REMOVE, api.NameArgs(name), answer=lambda message: self.manage(request, problem=message)
        )
        if result["problem"]:
            notice = f"{name} removed; its files are left in {result['files']} ({result['problem']})."
        elif result["deleted"] is not None:
            notice = f"{name} removed; its installed files were deleted ({megabytes(result['deleted'])} freed)."
        else:
            notice = f"{name} removed."
        return await self.manage(request, notice=notice)

    # secrets ---------------------------------------------------------------------------------

    async def set_secret(self, request: Request) -> Response:
        name = request.path_params["name"]
        form = await request.form()
        var, value = str(form.get("var", "")).strip(), str(form.get("value", ""))
        if name not in self._names():
            return await self.manage(request, problem=f"There is no agent called {name!r}.")
        if variable_problem(var) is not None:
            return await self.manage(request, problem=custom_agent.NOT_A_VARIABLE)
        if not value:
            return await self.manage(request, problem=f"Nothing typed for {var}: nothing stored.")
        try:
            await asyncio.to_thread(_secret_names().store, name, var, value)
        except SecretError as exc:
            return await self.manage(request, problem=str(exc))
        await _restart_quietly(name)
        return await self.manage(request, notice=f"{name}: {var} stored in the OS keyring; the agent restarts with it.")

    async def delete_secret(self, request: Request) -> Response:
        name, var = request.path_params["name"], request.path_params["var"]
        try:
            deleted = await asyncio.to_thread(_secret_names().delete, name, var)
        except SecretError as exc:
            return await self.manage(request, problem=str(exc))
        if not deleted:
            return await self.manage(request, problem=f"{name} has no secret {var} in the keyring.")
        await _restart_quietly(name)
        notice = f"{name}: {var} deleted from the OS keyring; the agent restarts without it."
        return await self.manage(request, notice=notice)


async def _restart_quietly(name: str) -> None:
    with contextlib.suppress(CallFailedError):  # stopped, or gone: it gets the secret when it starts
        await ask(api.AGENTS_RESTART, api.NameArgs(name))
