from .boundary import check_vectors, normalise


def build(client):
    return client.request("POST", client.url, json=client.payload, timeout=client.timeout)
