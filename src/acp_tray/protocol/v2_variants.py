"""Known ACP v2 `session/update` variants: what can be checked at the top level of each.

GENERATED from `tests/fixtures/acp-schema/v2/schema.unstable.json` by
`tests/tools/make_v2_variants.py`; do not edit. To regenerate after a schema update:

    .venv/bin/python tests/tools/make_v2_variants.py

`VARIANTS` maps each known `sessionUpdate` value to the properties of the update object that
are checked: `name: (required, JSON types its value may have)`. Every required property is
listed; an optional one only when a wrong type makes the update invalid (not for the
`x-deserialize-default-on-error` ones, which are read as absent). An empty type tuple would
mean "any type, presence only". Nothing below the top level is described here.

`KNOWN_STATES` are the `state` values of `state_update` (the set is open: other strings are
custom or future states), `IDLE_STOP_REASONS` the known `stopReason` values of the idle state
(also open).
"""

from __future__ import annotations

from typing import Final

# sessionUpdate -> {property: (required, JSON types allowed for its value)}
VARIANTS: Final[dict[str, dict[str, tuple[bool, tuple[str, ...]]]]] = {
    "user_message_chunk": {"messageId": (True, ("string",)), "content": (True, ("object",))},
    "user_message": {"messageId": (True, ("string",))},
    "agent_message_chunk": {"messageId": (True, ("string",)), "content": (True, ("object",))},
    "agent_message": {"messageId": (True, ("string",))},
    "agent_thought_chunk": {"messageId": (True, ("string",)), "content": (True, ("object",))},
    "agent_thought": {"messageId": (True, ("string",))},
    "state_update": {"state": (True, ("string",))},
    "tool_call_content_chunk": {"toolCallId": (True, ("string",)), "content": (True, ("object",))},
    "tool_call_update": {"toolCallId": (True, ("string",))},
    "terminal_update": {"terminalId": (True, ("string",))},
    "terminal_output_chunk": {"terminalId": (True, ("string",)), "data": (True, ("string",))},
    "plan_update": {"plan": (True, ("object",))},
    "plan_removed": {"planId": (True, ("string",))},
    "available_commands_update": {"availableCommands": (True, ("array",))},
    "config_option_update": {"configOptions": (True, ("array",))},
    "session_info_update": {},
    "usage_update": {"used": (True, ("integer",)), "size": (True, ("integer",))},
    "notice": {"severity": (True, ("string",)), "title": (True, ("string",))},
    "compaction_update": {"compactionId": (True, ("string",)), "status": (True, ("string",))},
    "compaction_summary_chunk": {"compactionId": (True, ("string",)), "content": (True, ("object",))},
    "subagent_update": {
        "sessionId": (True, ("string",)),
        "cwd": (False, ("string", "null")),
        "additionalDirectories": (False, ("array", "null")),
    },
    "session_message": {"messageId": (True, ("string",))},
    "session_message_chunk": {"messageId": (True, ("string",)), "content": (True, ("object",))},
}

KNOWN_STATES: Final[tuple[str, ...]] = ("running", "idle", "requires_action", "unknown")
IDLE_STOP_REASONS: Final[tuple[str, ...]] = (
    "end_turn",
    "max_tokens",
    "max_turn_requests",
    "refusal",
    "cancelled",
    "error",
)
