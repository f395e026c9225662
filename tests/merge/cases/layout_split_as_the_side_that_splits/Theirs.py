from .boundary import (
    ResponseRejected,
    check_vectors,
    normalise,
    parse_object,
    read_body,
)


def build(client):
    return client.request(
        "POST",
        client.url,
        json=client.payload,
        timeout=client.timeout,
        headers=client.headers,
        extensions={"trace": client.trace},
    )
