"""The bundled demo agent (stdio and WebSocket), so that notices flow on a fresh install."""
