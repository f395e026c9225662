"""Plugins loaded at start-up."""

PLUGINS = [
    "auth",
<<<<<<< ours
||||||| base
    "legacy_cache",
=======
    "cache",
>>>>>>> theirs
    "metrics",
]
