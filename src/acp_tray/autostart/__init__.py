"""Start on login, one class per OS behind `select.autostart_for`: an XDG autostart entry or a
systemd user unit (Linux/BSD, `xdg.py`), a LaunchAgent (macOS, `launchd.py`), the `Run` registry
value (Windows, `windows.py`). `entries.py` writes the entries' content (pure); `files.py` is what
the file-based kinds share. How an entry starts this installation, the stamped file and reading it
back as the desktop does are desktop/'s (entry.py, entry_file.py, readback.py): the app-menu
launcher writes entries too."""
