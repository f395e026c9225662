"""A time-bounded LRU for single-text embedding calls.

Services embed the same short query again and again (retries, pagination,
several recall paths for one user turn).  Caching only single-text calls
keeps the key simple and exact: a batch is almost never repeated verbatim.
Entries expire so a re-deployed model cannot serve stale vectors forever.
"""

from __future__ import annotations

import time
from collections import OrderedDict
from collections.abc import Callable

__all__ = ["TTLCache"]


class TTLCache:
    """LRU of text → vector whose entries expire *ttl* seconds after being stored.

    ``hits`` and ``misses`` count lookups, so an operator can tell a cold
    cache from a useless one.  Not thread-safe: one client lives on one
    event loop.
    """

    __slots__ = ("_entries", "_size", "_ttl", "_clock", "hits", "misses")

    def __init__(self, size: int, ttl: float, *, clock: Callable[[], float] = time.monotonic) -> None:
        self._entries: OrderedDict[str, tuple[float, list[float]]] = OrderedDict()
        self._size = size
        self._ttl = ttl
        self._clock = clock
        self.hits = 0
        self.misses = 0

    def __len__(self) -> int:
        return len(self._entries)

    def get(self, text: str) -> list[float] | None:
        """The live vector stored for *text*, or ``None``."""
        entry = self._entries.get(text)
        if entry is None:
            self.misses += 1
            return None
        if entry[0] <= self._clock():
            del self._entries[text]
            self.misses += 1
            return None
        self._entries.move_to_end(text)
        self.hits += 1
        # mnemo: a copy, so a caller that normalises the vector in place cannot corrupt the cache.
        return list(entry[1])

    def put(self, text: str, vector: list[float]) -> None:
        """Store *vector* for *text*, evicting the least recently used beyond the size."""
        if self._size <= 0 or self._ttl <= 0:
            return
        self._entries[text] = (self._clock() + self._ttl, list(vector))
        self._entries.move_to_end(text)
        while len(self._entries) > self._size:
            self._entries.popitem(last=False)

    def clear(self) -> None:
        """Forget every entry; the counters keep their history."""
        self._entries.clear()
