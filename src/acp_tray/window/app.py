"""The window's web application: each page's routes (window/pages/, in the order of its list) and the
live stream behind the guard, one answer to a failed call to the daemon, the templates (autoescaped:
every string an agent or a registry sends is text) and the package's own files (window/own_files.py)."""

from __future__ import annotations

from pathlib import Path

import anyio
import jinja2
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import RedirectResponse, Response
from starlette.routing import Route
from starlette.templating import Jinja2Templates

from acp_tray.assets import icon_path
from acp_tray.logs.text import asker
from acp_tray.window.daemon_calls import CallFailedError
from acp_tray.window.failed_calls import FailedCalls
from acp_tray.window.feed import Feed
from acp_tray.window.guard import App, Guard
from acp_tray.window.live import Live
from acp_tray.window.own_files import OwnFiles
from acp_tray.window.pages import PAGES
from acp_tray.window.plain import said
from acp_tray.window.render import Parts, Renderer

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
    return RedirectResponse(PAGES[0].path, status_code=303)


async def _no_icon(request: Request) -> Response:
    return Response(status_code=204)


def build_app(*, port: int, secret: str, feed: Feed, shutdown: anyio.Event) -> App:
    render = Renderer(templates(), feed, PAGES)
    parts = Parts(render, feed, shutdown)
    files = OwnFiles.serving(HERE / "static", "static", **{"icon.png": icon_path(64)})
    app = Starlette(
        routes=[
            Route("/", _home),
            *(route for page in PAGES for route in page.routes(parts)),
            Route("/events", Live(parts).events),
            Route("/favicon.ico", _no_icon),
            Route("/icon.png", files.answer),
            Route("/static/{path:path}", files.answer),
        ],
        exception_handlers={CallFailedError: FailedCalls(render).answer},
    )
    return Guard(app, port=port, secret=secret)
