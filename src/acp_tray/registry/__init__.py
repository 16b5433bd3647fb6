"""Installing agents from the ACP Registry: fetch and cache the registry document, turn an entry
into a pinned command (npx/uvx) or a downloaded, safely extracted binary. Never talks ACP.

Standard library only: the CLI imports it.
"""
