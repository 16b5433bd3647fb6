"""The local control endpoint and its API: a Unix socket (a named pipe on Windows) private to the
person; the API declared once (`api.py`), checked in one place (`checking.py`), served by
`server.py`, spoken by `client.py` (the CLI, the window)."""
