"""Wire models for the Agent Client Protocol: no I/O, only parsing and building messages."""
