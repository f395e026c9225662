class Settings:
    """Knobs of the embedding service."""

    timeout: float = 10.0
    """Seconds to wait for the backend."""

    width: int | None = None
    """The vector width every response must have."""

    retries: int = 2
    """How often a failed call is retried."""


def load():
    return Settings()
