"""The bundled demo agent (stdio and WebSocket), so that notices flow on a fresh install."""

DEMO_AGENT_NAME = "demo"  # its name in the preferences acp-tray writes on first run

# where the demo keeps its mark of having introduced itself (a file): acp-tray gives each agent it
# starts one of its own (`files.paths.demo_introduced_file`); unset, the demo introduces itself
# on every connection
INTRODUCED_ENV = "ACP_TRAY_DEMO_INTRODUCED"
