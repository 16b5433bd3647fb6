"""The Agents page: each agent with its state, sign-in and actions; adding one from the ACP Registry
(window/registry_pages.py) or of one's own, and managing each (window/agent_admin.py). The registry's,
the icons' and the sign-in's handlers are built when the page is first used (window/first_use.py)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from acp_tray.window.actions import Actions
from acp_tray.window.first_use import FirstUse
from acp_tray.window.render import Parts

if TYPE_CHECKING:
    from acp_tray.window.agent_admin import AgentAdmin
    from acp_tray.window.registry_pages import RegistryPages
    from acp_tray.window.signin import SignIns


@dataclass(frozen=True)
class Handlers:
    """What serves the page's parts beyond the list of agents."""

    registry: RegistryPages
    admin: AgentAdmin
    sign_ins: SignIns


def handlers(parts: Parts) -> Handlers:
    from acp_tray.window.agent_admin import AgentAdmin
    from acp_tray.window.icon_images import IconImages, icon_cache
    from acp_tray.window.installs import Installs
    from acp_tray.window.registry_pages import RegistryPages, RegistryReader
    from acp_tray.window.signin import SignIns

    reader, icons = RegistryReader(), IconImages(icon_cache())
    return Handlers(
        registry=RegistryPages(parts.feed, parts.render, reader, Installs(), icons),
        admin=AgentAdmin(parts.feed, parts.render, reader, icons),
        sign_ins=SignIns(parts.feed, parts.render),
    )


def routes(parts: Parts) -> list[Route]:
    async def page(request: Request) -> Response:
        from acp_tray.window import custom_agent

        return await parts.render.page(request, "agents", **custom_agent.form({}, {}))

    actions, later = Actions(parts.render), FirstUse(lambda: handlers(parts))
    post = ["POST"]
    return [
        Route("/agents", page),
        Route("/agents/{name}/{verb}", actions.agent, methods=post),
        later.route("/sign-in/{name}", lambda h: h.sign_ins.sign_in, post),
        later.route("/sign-in/{name}/code", lambda h: h.sign_ins.code, post),
        later.route("/registry/search", lambda h: h.registry.search),
        later.route("/registry/icons/{id}.png", lambda h: h.registry.icon),
        later.route("/registry/add/{id}", lambda h: h.registry.add, post),
        later.route("/registry/jobs", lambda h: h.registry.jobs),
        later.route("/registry/jobs/{job}", lambda h: h.registry.job),
        later.route("/manage", lambda h: h.admin.manage),
        later.route("/manage/custom", lambda h: h.admin.custom, post),
        later.route("/manage/{name}/icon.png", lambda h: h.admin.icon),
        later.route("/manage/{name}/upgrade", lambda h: h.registry.upgrade, post),
        later.route("/manage/{name}/edit", lambda h: h.admin.edit, post),
        later.route("/manage/{name}/remove", lambda h: h.admin.confirm_remove),
        later.route("/manage/{name}/remove", lambda h: h.admin.remove, post),
        later.route("/manage/{name}/secrets", lambda h: h.admin.set_secret, post),
        later.route("/manage/{name}/secrets/{var}/delete", lambda h: h.admin.delete_secret, post),
    ]
