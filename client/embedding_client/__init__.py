"""The canonical embedding client.

This package is vendored into services, so it depends on the standard library
and httpx only.  The public API is re-exported here; every other module is
private.
"""

from . import health
from .health import EmbeddingHealth
from .outcome import EmbedOutcome

__all__ = ["EmbeddingHealth", "health", "EmbedOutcome"]
