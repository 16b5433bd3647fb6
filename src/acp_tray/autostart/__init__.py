"""Start on login, per OS: an XDG autostart entry or a systemd user unit (Linux/BSD), a LaunchAgent
(macOS), the `Run` registry value (Windows). `entries.py` writes the files' content (pure);
`manager.py` installs, removes and reports them."""
