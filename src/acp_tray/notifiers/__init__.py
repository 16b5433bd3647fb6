"""Adapters that show presentations to the person as native notifications: the freedesktop
notification server over D-Bus (Linux/BSD), plyer (Windows, macOS), osascript, and the console;
`select.py` chooses them and `chain.py` falls back from one to the next."""
