"""The session updates that tell what a session is doing rather than what it says: its usage and
cost (`usage_update`), its title (`session_info_update`) and compaction (`compaction_update`),
turned into domain events. The same in ACP 1 and 2."""

from __future__ import annotations

from collections.abc import Callable

from acp_tray.events import CompactionChanged, SessionFact, SessionTitled, UsageReported
from acp_tray.protocol.update import OtherUpdate
from acp_tray.protocol.usage import COMPACTION_UPDATE, SESSION_INFO_UPDATE, USAGE_UPDATE, compaction, title, usage


def _usage(agent: str, update: OtherUpdate) -> SessionFact | None:
    said = usage(update.raw)
    return UsageReported(agent, update.session_id, said) if said is not None else None


def _title(agent: str, update: OtherUpdate) -> SessionFact | None:
    said, text = title(update.raw)
    return SessionTitled(agent, update.session_id, text) if said else None


def _compaction(agent: str, update: OtherUpdate) -> SessionFact | None:
    said = compaction(update.raw)
    return CompactionChanged(agent, update.session_id, said) if said is not None else None


_FACTS: dict[str, Callable[[str, OtherUpdate], SessionFact | None]] = {
    USAGE_UPDATE: _usage,
    SESSION_INFO_UPDATE: _title,
    COMPACTION_UPDATE: _compaction,
}


def fact_of(agent: str, update: OtherUpdate) -> SessionFact | None:
    """The event `update` makes, or None (another kind, or nothing usable in it)."""
    read = _FACTS.get(update.kind)
    return read(agent, update) if read is not None else None
