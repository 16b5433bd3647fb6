"""The ACP SDK's package, registered so that its `__init__` runs only when something asks for it.

Hosting uses the SDK's framing and transports (`acp.connection`, `acp.transports`, `acp.ws`,
`acp.exceptions`), none of which needs its schema models. But importing any `acp.X` first runs
`acp/__init__.py`, which imports every one of those models (`acp.schema`: ~14 MB resident and
~0.5 s). Registered here, `acp.X` imports only X and what X imports; the first name asked of
the package itself (`from acp import Agent`, `acp.PROTOCOL_VERSION`) runs the real `__init__`.
"""

from __future__ import annotations

import importlib.util
import sys
from typing import Any

PACKAGE = "acp"


def defer_package_init(name: str = PACKAGE) -> None:
    """Register package `name` without running its `__init__` yet (nothing to do once imported)."""
    if name in sys.modules:
        return
    spec = importlib.util.find_spec(name)
    if spec is None or spec.loader is None or spec.submodule_search_locations is None:
        return  # not an installed package: the import itself will say so
    package = importlib.util.module_from_spec(spec)
    loader = spec.loader

    def load(attribute: str) -> Any:  # PEP 562: called for names the module does not have yet
        del package.__dict__["__getattr__"]  # the real __init__ may define its own
        loader.exec_module(package)
        return getattr(package, attribute)

    package.__dict__["__getattr__"] = load
    sys.modules[name] = package
