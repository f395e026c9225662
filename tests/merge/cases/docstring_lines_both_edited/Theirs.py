class Client:
    """Talks to a backend.

    mode: the wire format.
    timeout: seconds one call may take, start to finish.
    cache_size: entries kept.
    transport: the httpx transport.
    """

    def __init__(self, mode):
        self.mode = mode

    def close(self):
        return None
