"""Start on login, one class per OS behind `select.autostart_for`: an XDG autostart entry or a
systemd user unit (Linux/BSD, `xdg.py`), a LaunchAgent (macOS, `launchd.py`), the `Run` registry
value (Windows, `windows.py`). `entries.py` writes the entries' content (pure), `commands.py` how an
entry starts this installation (checked, quoted); `readback.py` reads a written entry back as the
desktop does; `files.py` is what the file-based kinds share."""
