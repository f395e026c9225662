class Client:
    """Talks to a backend.

    mode: the wire format.
    timeout: seconds for each phase.
    cache_size: entries kept.
    transport: the httpx transport.
    """

    def __init__(self, mode):
        self.mode = mode
