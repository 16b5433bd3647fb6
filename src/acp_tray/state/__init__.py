"""What acp-tray keeps between runs: the history of notices, and agents' secrets in the OS keyring."""
