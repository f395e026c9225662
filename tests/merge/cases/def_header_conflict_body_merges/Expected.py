"""Cached lookups over the embedding store."""

from .cache import cached


class Store:
<<<<<<< ours
    def fetch(self, key, timeout=10):
||||||| base
    def fetch(self, key, timeout=5):
=======
    def fetch(self, key, timeout=30):
>>>>>>> theirs
        """Fetch one record."""
        x = self.get(key, fresh=True)
        return x or {}

<<<<<<< ours
    @cached(ttl=10)
    def many(
        self,
        keys,
        retries=2,
    ):
||||||| base
    @cached(ttl=10)
    def many(
        self,
        keys,
        retries=1,
    ):
=======
    @cached(ttl=10)
    def many(
        self,
        keys,
        retries=3,
    ):
>>>>>>> theirs
        return list(keys)
