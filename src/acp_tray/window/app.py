"""The window's web application: its routes behind the guard, the templates (autoescaped: every
string an agent or a registry sends is text) and the package's static files."""

from __future__ import annotations

from pathlib import Path

import anyio
import jinja2
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import FileResponse, RedirectResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles
from starlette.templating import Jinja2Templates

from acp_tray.assets import icon_path
from acp_tray.logs.text import asker
from acp_tray.window.actions import Actions
from acp_tray.window.agent_routes import agent_routes
from acp_tray.window.feed import Feed
from acp_tray.window.guard import App, Guard
from acp_tray.window.pages import Pages
from acp_tray.window.plain import said
from acp_tray.window.prefs_page import PrefsPage
from acp_tray.window.push_page import PushPage
from acp_tray.window.questions import question_routes
from acp_tray.window.sessions_page import session_routes
from acp_tray.window.signin import SignIns
from acp_tray.window.start_on_login import StartOnLogin
from acp_tray.window.welcome_page import WelcomePage

HERE = Path(__file__).resolve().parent


def templates() -> Jinja2Templates:
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(HERE / "templates"),
        autoescape=True,  # every template, whatever its name: agent text is never markup
        undefined=jinja2.StrictUndefined,
    )
    env.globals["asker"] = asker  # "claude › Child check": the one way a request's asker is named
    env.globals["plain"] = said  # a daemon's line as a person reads it, and its technical part (`_details.html`)
    return Jinja2Templates(env=env)


async def _home(request: Request) -> Response:
    return RedirectResponse("/overview", status_code=303)


async def _no_icon(request: Request) -> Response:
    return Response(status_code=204)


async def _icon(request: Request) -> Response:
    return FileResponse(icon_path(64), media_type="image/png")


def build_app(*, port: int, secret: str, feed: Feed, shutdown: anyio.Event) -> App:
    views = templates()
    pages, actions, sign_ins = Pages(feed, views, shutdown), Actions(views), SignIns(feed, views)
    app = Starlette(
        routes=[
            Route("/", _home),
            Route("/overview", pages.overview),
            Route("/agents", pages.agents),
            Route("/sessions", pages.sessions),
            Route("/preferences", pages.preferences),
            Route("/history", pages.history),
            Route("/diagnostics", pages.diagnostics),
            Route("/events", pages.events),
            Route("/favicon.ico", _no_icon),
            Route("/icon.png", _icon),
            Route("/agents/{name}/{verb}", actions.agent, methods=["POST"]),
            Route("/approvals/{id}", actions.approval, methods=["POST"]),
            Route("/sign-in/{name}", sign_ins.sign_in, methods=["POST"]),
            Route("/sign-in/{name}/code", sign_ins.code, methods=["POST"]),
            Route("/dnd", actions.dnd, methods=["POST"]),
            Route("/read", actions.read, methods=["POST"]),
            Route("/start-on-login", StartOnLogin(views).switch, methods=["POST"]),
            *agent_routes(feed, views),
            *PrefsPage(feed, views).routes(),
            *PushPage(views).routes(),
            *session_routes(feed, views, shutdown),
            *question_routes(feed, views),
            *WelcomePage(feed, views).routes(),
            Mount("/static", StaticFiles(directory=HERE / "static"), name="static"),
        ]
    )
    return Guard(app, port=port, secret=secret)
