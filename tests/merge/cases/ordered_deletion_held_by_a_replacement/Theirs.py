"""Plugins loaded at start-up."""

PLUGINS = [
    "auth",
    "cache",
    "metrics",
]
