"""Plugins loaded at start-up."""

PLUGINS = [
    "auth",
    "metrics",
]
