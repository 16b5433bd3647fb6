"""`acp-tray doctor`: what works here and what to do about the rest (diagnose.py), one check a line."""
