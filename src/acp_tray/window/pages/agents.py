"""The Agents page: each agent with its state, sign-in and actions; adding one from the ACP Registry
(window/registry_pages.py) or of one's own, and managing each (window/agent_admin.py)."""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from acp_tray.window import custom_agent
from acp_tray.window.actions import Actions
from acp_tray.window.agent_admin import AgentAdmin
from acp_tray.window.icon_images import IconImages, icon_cache
from acp_tray.window.installs import Installs
from acp_tray.window.registry_pages import RegistryPages, RegistryReader
from acp_tray.window.render import Parts
from acp_tray.window.signin import SignIns


def routes(parts: Parts) -> list[Route]:
    async def page(request: Request) -> Response:
        return await parts.render.page(request, "agents", **custom_agent.form({}, {}))

    reader, icons = RegistryReader(), IconImages(icon_cache())
    registry = RegistryPages(parts.feed, parts.render, reader, Installs(), icons)
    admin = AgentAdmin(parts.feed, parts.render, reader, icons)
    actions, sign_ins = Actions(parts.render), SignIns(parts.feed, parts.render)
    return [
        Route("/agents", page),
        Route("/agents/{name}/{verb}", actions.agent, methods=["POST"]),
        Route("/sign-in/{name}", sign_ins.sign_in, methods=["POST"]),
        Route("/sign-in/{name}/code", sign_ins.code, methods=["POST"]),
        Route("/registry/search", registry.search),
        Route("/registry/icons/{id}.png", registry.icon),
        Route("/registry/add/{id}", registry.add, methods=["POST"]),
        Route("/registry/jobs", registry.jobs),
        Route("/registry/jobs/{job}", registry.job),
        Route("/manage", admin.manage),
        Route("/manage/custom", admin.custom, methods=["POST"]),
        Route("/manage/{name}/icon.png", admin.icon),
        Route("/manage/{name}/upgrade", registry.upgrade, methods=["POST"]),
        Route("/manage/{name}/edit", admin.edit, methods=["POST"]),
        Route("/manage/{name}/remove", admin.confirm_remove),
        Route("/manage/{name}/remove", admin.remove, methods=["POST"]),
        Route("/manage/{name}/secrets", admin.set_secret, methods=["POST"]),
        Route("/manage/{name}/secrets/{var}/delete", admin.delete_secret, methods=["POST"]),
    ]
