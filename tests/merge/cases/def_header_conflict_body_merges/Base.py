"""Cached lookups over the embedding store."""

from .cache import cached


class Store:
    def fetch(self, key, timeout=5):
        """Fetch one record."""
        x = self.get(key)
        return x

    @cached(ttl=10)
    def many(
        self,
        keys,
        retries=1,
    ):
        return [k for k in keys]
