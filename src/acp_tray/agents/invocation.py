"""What a terminal sign-in runs: the agent's own program with the method's args, as the agent's
authors meant it. Pure: no I/O.

The ACP Registry's convention (its AUTHENTICATION.md), which the agents it lists follow: a terminal
method's args *replace* the agent's default args (`my-agent serve --acp` with `args: ["--setup"]`
runs `my-agent --setup`). The ACP schema's wording reads as "append". acp-tray replaces for an
agent added from the registry (its program is known exactly, from what was installed) and for a
method typed the older way, in `_meta` (qwen-code's: those agents follow the registry); it appends
for any other (`type: "terminal"` of an agent configured by hand).
"""

from __future__ import annotations

from collections.abc import Sequence

from acp_tray.prefs.command_rules import fetches_on_start
from acp_tray.protocol.auth import AuthMethod


def program_of(command: Sequence[str], known: Sequence[str] = ()) -> list[str]:
    """The part of `command` that names the agent, without its default args: `known` (what the
    registry installed) when `command` starts with it; for a package runner (`npx -y -- PKG …`),
    the words up to its package; else the words before the first option (`qwen --acp` → `qwen`)."""
    words = list(command)
    if known and words[: len(known)] == list(known):
        return list(known)
    if fetches_on_start(words):
        if "--" in words:
            end = words.index("--") + 2
            return words[: min(end, len(words))]
        package = next((n for n, word in enumerate(words[1:], 1) if not word.startswith("-")), len(words) - 1)
        return words[: package + 1]
    first_option = next((n for n, word in enumerate(words[1:], 1) if word.startswith("-")), len(words))
    return words[:first_option]


def login_command(command: Sequence[str], method: AuthMethod, known: Sequence[str] = ()) -> list[str]:
    """What the terminal method `method` runs for the agent started with `command` (`known`: its
    program without default args, for an agent added from the registry): a command of its own
    (`_meta["terminal-auth"]`) as it is; else the agent's program with the method's args, in place
    of the agent's default args (the registry's way) or after them (the schema's)."""
    if method.command:
        return list(method.command)
    if known or method.replaces:
        return [*program_of(command, known), *method.args]
    return [*command, *method.args]
