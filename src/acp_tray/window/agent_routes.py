"""The routes of the agents page's registry and management parts (added to the window's app)."""

from __future__ import annotations

from starlette.routing import Route
from starlette.templating import Jinja2Templates

from acp_tray.window.agent_admin import AgentAdmin
from acp_tray.window.feed import Feed
from acp_tray.window.icon_images import IconImages, icon_cache
from acp_tray.window.installs import Installs
from acp_tray.window.registry_pages import RegistryPages, RegistryReader


def agent_routes(feed: Feed, templates: Jinja2Templates) -> list[Route]:
    reader, icons = RegistryReader(), IconImages(icon_cache())
    registry = RegistryPages(feed, templates, reader, Installs(), icons)
    admin = AgentAdmin(feed, templates, reader, icons)
    return [
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
