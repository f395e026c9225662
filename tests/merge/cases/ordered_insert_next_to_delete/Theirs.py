PIPELINE = [
    "parse",
    "normalise",
    "store",
]


def run(client, texts):
    return client.send(texts, 30)


def unrelated():
    return 2
