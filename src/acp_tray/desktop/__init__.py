"""The desktop around acp-tray: opening a file or a page, a terminal window, the session bus."""
