"""A web page opened in the person's browser, only as they asked (a question's "Open"): xdg-open,
macOS `open`, Windows' URL association. The address is checked by the caller (https://, or
http:// on loopback)."""

from __future__ import annotations

import asyncio
import os
import shutil
import sys

OPEN_WAIT = 30.0  # seconds to wait for the opener to say whether it opened the page


async def open_url(url: str) -> str | None:
    """Why the page could not be opened, in plain words (None: it was handed to the browser)."""
    if sys.platform == "win32":
        try:
            os.startfile(url)  # type: ignore[attr-defined]
        except OSError as exc:
            return f"Windows could not open it ({exc.strerror or exc})"
        return None
    opener = "open" if sys.platform == "darwin" else shutil.which("xdg-open")
    if opener is None:
        return "no program that opens web pages (xdg-open) is installed"
    try:
        process = await asyncio.create_subprocess_exec(
            opener, url, stdin=asyncio.subprocess.DEVNULL, stdout=asyncio.subprocess.DEVNULL,
            stderr=asyncio.subprocess.DEVNULL, start_new_session=True,
        )  # fmt: skip
    except OSError as exc:
        return f"{opener} could not be run ({exc.strerror or exc})"
    try:
        code = await asyncio.wait_for(process.wait(), OPEN_WAIT)
    except TimeoutError:
        return None  # still handing it over: the browser has it or will say so itself
    return None if code == 0 else f"{os.path.basename(opener)} could not open it (exit code {code})"
