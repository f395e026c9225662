class Client:
    def embed(self, texts):
        return self._request({"texts": texts}, len(texts))

    def _request(self, payload, count):
        return [payload] * count
