"""Files acp-tray keeps: written atomically, private to the person (0600/0700), rotated, and where they live."""
