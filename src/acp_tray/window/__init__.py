"""The acp-tray window: a local web page served by `acp-tray ui`, talking to the daemon through the control API."""
