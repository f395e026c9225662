"""Split texts into cache hits and misses."""

from __future__ import annotations


def partition(texts: list[str], cache: dict[str, list[float]]) -> tuple[list[str], list[str]]:
    """Return (hits, misses), keeping input order within each group."""
    hits = [t for t in texts if t in cache]
    misses = [t for t in texts if t not in cache]
<<<<<<< ours
    return hits, sorted(misses)
||||||| base
    return hits, misses
=======
    return hits, list(dict.fromkeys(misses))
>>>>>>> theirs


def batches(items: list[str], size: int = 64) -> list[list[str]]:
    return [items[i : i + size] for i in range(0, len(items), size)]
