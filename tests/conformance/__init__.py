"""acp-tray against ACP agents built by others (pinned, installed outside the repo by `.ci/real-agents`)."""
