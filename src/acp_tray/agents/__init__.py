"""Hosting agents: the only package that holds a connection to an agent."""
