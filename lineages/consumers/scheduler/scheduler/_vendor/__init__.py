"""Packages vendored into the scheduler by `plait vendor` (see lineages.toml)."""
