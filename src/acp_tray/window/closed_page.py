"""What the window answers a browser that holds no session of it (an old tab after the window's
server was restarted, an opening address used again): a page in the window's look that says in
words how to open the window again, never a plain-text 403, marked for the page's script (an htmx
request's answer: static/live.js shows its own banner). Its style is the window's stylesheet, inline
and allowed by its hash alone: without a session the page may load nothing from the window."""

from __future__ import annotations

import base64
import hashlib
import html
from pathlib import Path

STYLE = (Path(__file__).resolve().parent / "static" / "app.css").read_text(encoding="utf-8")
STYLE_HASH = base64.b64encode(hashlib.sha256(STYLE.encode()).digest()).decode()
CSP = (
    f"default-src 'none'; style-src 'sha256-{STYLE_HASH}'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'"
)
MARK = (b"x-acp-tray-window", b"closed")  # what the page's script knows the answer by
OLD_PAGE = "This page is from an acp-tray window that has closed, or it was opened without acp-tray's own link."
USED_LINK = "This link was used already or has expired: run `acp-tray ui` again, or open the window as below."
PAGE = """<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="light dark">
<title>Open the acp-tray window again · acp-tray</title>
<style>{style}</style>
</head>
<body>
<header class="bar"><span class="brand">acp-tray</span></header>
<main>
<h1>Open the acp-tray window again</h1>
<div class="card">
<p>{lead}</p>
<p>Open it from the tray's menu (<strong>Open acp-tray…</strong>) or the app menu, or run <code>acp-tray ui</code>
in a terminal. If acp-tray is not running, start it first: from the app menu, or run <code>acp-tray</code> in a
terminal.</p>
<p class="muted">The window opens only from acp-tray's own link, so that no other program can: this page cannot
reconnect by itself.</p>
</div>
</main>
</body>
</html>
"""


def closed_page(lead: str) -> bytes:
    """The page, its first paragraph `lead`."""
    return PAGE.format(style=STYLE, lead=html.escape(lead)).encode()
