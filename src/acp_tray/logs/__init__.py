"""What is kept out of every line acp-tray shows or logs: secrets (redact.py) and what untrusted text
must not carry (text.py: control and bidi characters, unbounded length); and the log's own set-up."""
