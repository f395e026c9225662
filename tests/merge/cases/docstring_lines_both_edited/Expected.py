class Client:
    """Talks to a backend.

    mode: the wire format.
    timeout: seconds one call may take, start to finish.
    cache_size: entries kept.
    transport: the httpx transport.
    uds_path: the unix socket for mode uds.
    """

    def __init__(self, mode):
        self.mode = mode

    def via_uds(self):
        return "uds"

    def close(self):
        return None
