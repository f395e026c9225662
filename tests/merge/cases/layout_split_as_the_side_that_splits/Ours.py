from .boundary import check_vectors, normalise, order_by_index


def build(client):
    return client.request("POST", client.url, json=client.payload, timeout=client.timeout, follow=False)
