"""A program that is no agent any more (kimi-cli 1.52.0 does this): one plain-text line on stdout,
coloured as a terminal program colours it, then exit code 0."""

from __future__ import annotations

import sys

sys.stdout.write("\x1b[33mretired-cli is no longer maintained; install retired-code instead\x1b[0m\n")
sys.stdout.flush()
sys.exit(0)
