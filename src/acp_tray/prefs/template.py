"""The preferences file written on first run: every setting present, each explained."""

from __future__ import annotations

DEFAULT_FILE = """\
# acp-tray preferences.
# Changes take effect as soon as the file is saved; no restart needed.
# An invalid file is reported (file, line, reason) and the last good settings stay in force.
# `acp-tray prefs validate` checks this file; `acp-tray prefs edit` opens it.

# Where native notifications go: "auto" (the desktop's notification server over D-Bus on
# Linux/BSD, plyer on macOS and Windows), "freedesktop", "plyer", or "console" (terminal
# lines only). A backend that fails falls back to the next one and is retried later.
# Read at start: restart acp-tray after changing it.
notifier = "auto"

# The ACP version to speak with agents: "auto" offers 2 and continues on 1 with an agent that
# answers 1 (re-initializing it once on a fresh connection, so it learns acp-tray shows notices,
# and remembering that it speaks 1); or 1 or 2 to offer only that. Per agent: `protocol` below.
protocol = "auto"

# The ACP Registry that `acp-tray agents search`, `agents add ID` and `agents upgrade` read:
# the official one by default; a company can host its own (https:// only).
registry = "https://cdn.agentclientprotocol.com/registry/v1/latest/registry.json"

# How each notice severity is presented.
#   route:   "notify" = native desktop notification, "tray" = tray menu only,
#            "both", or "none" (only kept in the history)
#   sound:   a sound name from the freedesktop sound naming spec ("dialog-warning",
#            "dialog-error", "message-new-instant", ...), sent as the notification's
#            `sound-name` hint; "" = silent. Servers without sounds ignore it; macOS plays
#            its own notification sound for any name (Windows: as its settings say).
#   timeout: seconds a native notification stays on screen (0 = until dismissed)
[severity.info]
route = "both"
timeout = 5
sound = ""

[severity.warning]
route = "both"
timeout = 0
sound = "dialog-warning"

[severity.error]
route = "both"
timeout = 0
sound = "dialog-error"

# Any other severity: "_"-prefixed extensions and future ACP severities.
# They get this neutral presentation; nothing is inferred from their name.
[severity.other]
route = "both"
timeout = 10
sound = ""

# Do not disturb: no native notifications (notices still reach the tray and the history).
[dnd]
enabled = false      # manual switch (`acp-tray dnd on | off | for 30m | for 1h | until tomorrow`)
until = ""           # when DND ends, e.g. 2026-11-29T14:00:00+01:00 ("" = until switched off)
allow = []           # what breaks through DND, e.g. ["error"]: info, warning, error, other, and
                     # "approvals" (requests an agent waits on)
morning = "08:00"    # "until tomorrow" ends at this time

# A weekly quiet-hours schedule, in local time. A window may cross midnight:
# 22:00-07:00 on "fri" runs from Friday 22:00 to Saturday 07:00.
[dnd.quiet_hours]
enabled = false
days = ["mon", "tue", "wed", "thu", "fri", "sat", "sun"]
start = "22:00"
end = "07:00"

# Identical notices (same agent, session, severity, title and description) arriving
# within `window` seconds of the last one are shown once, with a count (x3).
# Each is still recorded in the history. 0 turns coalescing off.
[coalesce]
window = 30

# At most `burst` native notifications per agent every `per` seconds. The rest go to
# the tray, followed by one summary ("12 more notices from NAME").
[rate_limit]
burst = 5
per = 10

# Prompt turns. A turn that ends sooner than `notify_after` seconds says "Finished" in the
# tray and the history only, not as a pop-up (you were probably still watching it).
# 0 = a pop-up for every turn. Failed and stopped turns always pop up, however short.
# A running turn with no word from the agent for `silence_after` seconds is shown as "no word
# from the agent for 2 min" (a state beside the session, with Cancel; not a notification). 0 = never.
[turns]
notify_after = 20
silence_after = 60

# Approval requests (an agent waits for your answer): their own sound, whatever their severity.
[approvals]
sound = "message-new-instant"

# Usage and rate limits. When an agent reports that `warn_at` percent of one of its rate limits
# is used (claude's five-hour limit...), acp-tray warns once until that limit resets.
[usage]
warn_at = 80

# Push: what matters reaches your phone (or chat, or mail) while you are away from the desk,
# through Apprise (ntfy, Pushover, Gotify, Telegram, Signal, Matrix, Slack, e-mail, webhooks...).
# Add a target with `acp-tray push add NAME` (its URL, e.g. ntfy://ntfy.sh/TOPIC, is read without
# echo into the OS keyring; this file only ever names it), then `acp-tray push test NAME`.
#   when:       "away" (only while you have been idle or the screen locked for `away_after`
#               seconds), "always", or "never"
#   kinds:      what is pushed: notices by severity ("error", "warning", "info", "other"),
#               "approvals" (an agent waits for your answer; answer it at the desk), "turns"
#               (finished, failed or stopped) and "agents" (crashed, needs sign-in)
#   targets:    the targets to push to, e.g. ["phone"] ([] = every target added)
#   burst, per: at most `burst` pushes per agent to each target every `per` seconds; then one
#               summary ("12 more notices from NAME")
#   answers:    true: an ntfy target's approval pushes carry "Allow once" and "Reject" buttons (a
#               question's, a button per choice) that answer from the phone; other services stay
#               one-way. Anyone who can read the topic can press them: use a protected topic.
#   answers_always: true: an "Always allow" button too
# Do not disturb and quiet hours hold pushes too, except for the kinds in [dnd] allow.
[push]
when = "away"
away_after = 300
kinds = ["error", "approvals", "turns", "agents"]
targets = []
burst = 3
per = 60
answers = false
answers_always = false

# Agents to host. Each is a table [agents.NAME] with either a command or a url
# (`acp-tray agents add NAME -- CMD ARGS...` and `acp-tray agents add NAME --url URL` add one;
#  `acp-tray agents add ID` adds one from the registry above, under its registry id):
#   command = ["program", "arg", ...]   (a local agent; "acp-tray" means this installation)
#   url     = "wss://host/acp"          (a remote agent over WebSocket: ws:// or wss://)
#   headers = { Authorization = "Bearer ${MY_AGENT_TOKEN}" }
#                                       (remote only; ${VAR} is read from your environment at
#                                        connect time, and never written to logs or history)
#   cwd     = "~/src/project"           (session working directory; default: your home)
#   env     = { NAME = "value" }        (added to your environment for this agent)
#   mute    = true                      (keep its notices in the history only)
#   permission = "ask"                  (when it asks to run a tool: "ask" you (tray, notification
#                                        buttons, `acp-tray approve ID`), "reject", or "allow".
#                                        WARNING: "allow" lets the agent do anything it asks,
#                                        unattended. Nothing is approved by a dismissal.)
#   permission_timeout = 300            (seconds to wait for your answer; then "cancelled")
#   protocol = "auto"                   (this agent's ACP version: "auto", 1 or 2; default: the one above)
#   [agents.NAME.route]                 (per-severity route overrides for this agent)
#   error = "both"
[agents.demo]
command = ["acp-tray", "demo-agent"]
mute = false

[agents.demo.route]
# info = "tray"
"""
