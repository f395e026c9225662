from .boundary import (
    ResponseRejected,
    check_vectors,
    normalise,
    order_by_index,
    parse_object,
    read_body,
)


def build(client):
    return client.request(
        "POST",
        client.url,
        json=client.payload,
        timeout=client.timeout,
        follow=False,
        headers=client.headers,
        extensions={"trace": client.trace},
    )
