"""mnemo's own test: the local fix in its vendored cache holds."""

from __future__ import annotations

from mnemo._vendored_mcp_common.embedding_client.cache import TTLCache
from mnemo.search import cached_query


def test_normalising_a_cached_query_leaves_the_cache_as_it_was() -> None:
    cache = TTLCache(size=8, ttl=60.0)
    cache.put("q", [3.0, 4.0])
    assert cached_query(cache, "q") == [0.6, 0.8]
    assert cached_query(cache, "q") == [0.6, 0.8], "the cache handed out its own list, and it was normalised twice"
