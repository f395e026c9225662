"""Cache helpers.

Kept deliberately small; see docs/cache.md.
"""
from __future__ import annotations
import hashlib   # stdlib only: this file is vendored
import logging



log = logging.getLogger( __name__ )

#: Bumped whenever the key format changes.
KEY_VERSION = 'v2'
MAX_ENTRIES = 10_000 ;  EVICT_BATCH = 100


def cache_key(model:str, text:str)->str:
    # Normalise whitespace so trivially different texts share an entry.
    normalised = ' '.join(text.split())
    digest = hashlib.sha1(normalised.encode('utf-8')).hexdigest()
    return f'{KEY_VERSION}:{model}:{digest}'


class VectorCache :
    '''LRU-ish cache of vectors.'''

    def __init__(self,
                 max_entries = MAX_ENTRIES):
        self.max_entries = max_entries
        self._data = {}     # key -> vector


    def get(self, key):
        return self._data.get(key)

    def put(self, key, vector):
        if len(self._data) >= self.max_entries:
            for old in list(self._data)[:EVICT_BATCH]:   # oldest first
                del self._data[old]
        self._data[key] = vector
