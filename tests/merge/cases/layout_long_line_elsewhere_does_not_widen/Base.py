from .boundary import check_vectors, normalise


DEFAULT_HELP = "this line is long on purpose: the module has one line of about one hundred and forty characters, as real modules do."


def build(client):
    return client.request("POST", client.url, json=client.payload, timeout=client.timeout)
