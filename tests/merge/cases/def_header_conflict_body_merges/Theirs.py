"""Cached lookups over the embedding store."""

from .cache import cached


class Store:
    def fetch(self, key, timeout=30):
        """Fetch one record."""
        x = self.get(key)
        return x or {}

    @cached(ttl=10)
    def many(
        self,
        keys,
        retries=3,
    ):
        return [k for k in keys]
