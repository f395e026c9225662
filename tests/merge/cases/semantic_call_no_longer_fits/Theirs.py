class Client:
    def embed(self, texts):
        return self._request({"texts": texts}, len(texts), trace=None)

    def _request(self, payload, count, trace):
        return [payload] * count
