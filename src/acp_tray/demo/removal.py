"""When acp-tray offers to remove the bundled demo agent: once the person has an agent of their own
beside it (the CLI says how after adding one; the window's agents page has a button)."""

from __future__ import annotations

from collections.abc import Collection

from acp_tray.demo import DEMO_AGENT_NAME

REMOVE_DEMO = f"acp-tray agents remove {DEMO_AGENT_NAME}"


def demo_alongside(names: Collection[str]) -> bool:
    """Whether the demo agent is configured together with another agent."""
    return DEMO_AGENT_NAME in names and len(names) > 1


def removal_hint(names: Collection[str]) -> str | None:
    """What the CLI adds after an agent was added, while the demo is still there (None: nothing)."""
    if not demo_alongside(names):
        return None
    return f"the demo agent is still configured: remove it with `{REMOVE_DEMO}`"
