"""The local control endpoint: a Unix socket (named pipe on Windows) the CLI talks to the daemon over."""
