"""Relative paths that stay where they are put.

The manifest, the sync state and a vendored directory's lock all name files
by relative path; each is read from disk, where anyone may have edited it.
A name that is absolute or climbs with ``..`` would let a write or a read
land outside the copy it belongs to, so every such name is checked here, by
one rule.
"""

from __future__ import annotations

import os

__all__ = ["CACHE_DIR", "JOURNAL_NAME", "LOCK_NAME", "STORE_DIR", "is_plain_relative", "read_bytes"]

# Where plait keeps what it remembers in a workspace (the base store, the
# sync state), beside the manifest.
STORE_DIR = ".plait"

# Inside the store: what plait derived and may derive again (`Store.cached`); never committed.
CACHE_DIR = "cache"

# What a run that passed its switch point left for the next run to finish (`plait.commit`).
JOURNAL_NAME = "journal.json"

# The provenance lock `plait vendor` keeps in each vendored directory.
LOCK_NAME = "plait.lock"


def is_plain_relative(name: str) -> bool:
    """Whether *name* is a plain relative path: not absolute, no ``..``, not empty, in its
    normal spelling (``a/b``, not ``a//b`` or ``./a``).

    What `PurePosixPath` would say (``bool(p.parts) and not p.is_absolute() and ".." not in
    p.parts and name == p.as_posix()``), said by splitting: a manifest's paths and a lock's
    every file ask it, and parsing a path each time was a tenth of loading a fleet's manifest.
    """
    return bool(name) and all(part not in _NOT_PLAIN for part in name.split("/"))


# The parts of a path that make it absolute (a leading ""), not normal ("", "."), or leave its directory.
_NOT_PLAIN = frozenset({"", ".", ".."})

# One read takes a whole vendored file (the next, empty, says it was all); a larger one is read in pieces.
_CHUNK = 1 << 20


def read_bytes(path: str | os.PathLike[str]) -> bytes:
    """The bytes of the file at *path*, read with `os.read` (an OSError as `open` raises one).

    `plait check` reads every lock and every vendored file of a fleet, and
    `pathlib`'s and a buffered file's wrappers cost more than the reading.
    """
    fd = os.open(path, os.O_RDONLY)
    try:
        data = os.read(fd, _CHUNK)
        more = data and os.read(fd, _CHUNK)  # (a read may stop short of the end: read to an empty one)
        if not more:
            return data
        chunks = [data, more]
        while chunk := os.read(fd, _CHUNK):
            chunks.append(chunk)
        return b"".join(chunks)
    finally:
        os.close(fd)
