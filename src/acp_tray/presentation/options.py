"""How a permission option is labelled on every surface (notification button, tray menu, CLI):
its kind first, in acp-tray's words, then the agent's name for it, so that a name can never
contradict what the option does ("✔ Allow always: Deny"). Standard library only (the CLI uses it).
"""

from __future__ import annotations

from acp_tray.logs.text import plain_line

KIND_WORDS = {
    "allow_once": "✔ Allow once",
    "allow_always": "✔ Allow always",
    "reject_once": "✖ Reject",
    "reject_always": "✖ Reject always",
}


def option_label(name: str, kind: str | None, limit: int) -> str:
    """ "✔ Allow always: NAME" (NAME left out when it only repeats the kind); an unknown kind is
    named as sent ("? defer_to_human: NAME"), bounded to `limit` with the kind kept whole."""
    shown = plain_line(name, limit)
    words = KIND_WORDS.get(kind or "")
    if words is None:  # a kind from a later ACP: marked by its prefix, named as sent
        mark = "✔ " if kind and kind.startswith("allow_") else "✖ " if kind and kind.startswith("reject_") else "? "
        words = mark + (plain_line(kind, 40) if kind else "unknown kind")
    if not shown or shown.casefold() == words[2:].casefold():  # no name, or one that only repeats the kind
        return words
    return plain_line(f"{words}: {shown}", max(limit, len(words) + 8))
