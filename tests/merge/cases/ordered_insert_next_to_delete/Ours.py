PIPELINE = [
    "parse",
    "validate",
    "dedupe",
    "normalise",
    "store",
]


def run(client, texts):
    return client.send("embed", "v2", texts, 30)


def unrelated():
    return 1
