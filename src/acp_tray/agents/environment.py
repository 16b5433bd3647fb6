"""The environment an agent process starts with.

The SDK trims the environment to a handful of variables (HOME, PATH, ...). Agents need more of
the user's session than that (API keys, locale, proxy, XDG and display variables), so an agent
gets the daemon's full environment with the agent's configured `env` laid over it, and this
daemon's run mark (`agents/leftovers.py`) over that: no configured value can take an agent out
of reach of the next daemon. The bundled demo agent also learns where its "introduced" mark is
(`demo/agent.py`: its notices on its first start only); other agents ignore it.
"""

from __future__ import annotations

import os
from collections.abc import Mapping

from acp_tray.agents.leftovers import VARIABLE as RUN_MARK
from acp_tray.demo import INTRODUCED_ENV


def agent_environment(
    configured: Mapping[str, str],
    base: Mapping[str, str] | None = None,
    *,
    run_mark: str | None = None,
    introduced: str | None = None,
) -> dict[str, str]:
    env = dict(os.environ if base is None else base)
    if introduced is not None:  # a configured value may set its own
        env[INTRODUCED_ENV] = introduced
    env.update(configured)
    if run_mark is not None:
        env[RUN_MARK] = run_mark
    return env
