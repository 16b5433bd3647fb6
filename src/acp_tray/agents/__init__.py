"""Hosting agents: the only package that holds a connection to an agent.

It uses the ACP SDK's framing and transports only, so the SDK's package is registered first
without its schema models (see `sdk_package`).
"""

from acp_tray.agents.sdk_package import defer_package_init

defer_package_init()
