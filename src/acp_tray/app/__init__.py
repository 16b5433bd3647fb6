"""The daemon: its parts (the agent fleet, the preferences reloader, the event pump, the tray
publisher, the actions a person takes) and the composition root that builds and wires them."""
