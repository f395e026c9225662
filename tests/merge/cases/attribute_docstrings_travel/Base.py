class Settings:
    """Knobs of the embedding service."""

    timeout: float = 10.0
    """Seconds to wait for the backend."""

    retries: int = 2
    """How often a failed call is retried."""

    legacy: bool = False
    """Talk to the v1 endpoint."""


def load():
    return Settings()
