"""Relative paths that stay where they are put.

The manifest, the sync state and a vendored directory's lock all name files
by relative path; each is read from disk, where anyone may have edited it.
A name that is absolute or climbs with ``..`` would let a write or a read
land outside the copy it belongs to, so every such name is checked here, by
one rule.
"""

from __future__ import annotations

import functools
from pathlib import PurePosixPath

__all__ = ["CACHE_DIR", "JOURNAL_NAME", "LOCK_NAME", "STORE_DIR", "is_plain_relative"]

# Where plait keeps what it remembers in a workspace (the base store, the
# sync state), beside the manifest.
STORE_DIR = ".plait"

# Inside the store: what plait derived and may derive again (`Store.cached`); never committed.
CACHE_DIR = "cache"

# What a run that passed its switch point left for the next run to finish (`plait.commit`).
JOURNAL_NAME = "journal.json"

# The provenance lock `plait vendor` keeps in each vendored directory.
LOCK_NAME = "plait.lock"


@functools.lru_cache(maxsize=1024)  # `plait check` asks it of every file of every lock, mostly the same names
def is_plain_relative(name: str) -> bool:
    """Whether *name* is a plain relative path: not absolute, no ``..``, not empty, in its
    normal spelling (``a/b``, not ``a//b`` or ``./a``)."""
    path = PurePosixPath(name)
    return bool(path.parts) and not path.is_absolute() and ".." not in path.parts and name == path.as_posix()
