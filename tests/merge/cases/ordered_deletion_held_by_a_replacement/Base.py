"""Plugins loaded at start-up."""

PLUGINS = [
    "auth",
    "legacy_cache",
    "metrics",
]
