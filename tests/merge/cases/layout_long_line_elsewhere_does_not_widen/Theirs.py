from .boundary import (
    ResponseRejected,
    check_vectors,
    normalise,
    parse_object,
    read_body,
)


DEFAULT_HELP = "this line is long on purpose: the module has one line of about one hundred and forty characters, as real modules do."


def build(client):
    return client.request(
        "POST",
        client.url,
        json=client.payload,
        timeout=client.timeout,
        headers=client.headers,
        extensions={"trace": client.trace},
    )
