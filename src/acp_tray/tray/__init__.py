"""The tray: a pystray icon and menu, rebuilt from immutable snapshots of the daemon's state."""
