"""Cached lookups over the embedding store."""

from .cache import cached


class Store:
    def fetch(self, key, timeout=10):
        """Fetch one record."""
        x = self.get(key, fresh=True)
        return x

    @cached(ttl=10)
    def many(
        self,
        keys,
        retries=2,
    ):
        return list(keys)
