PIPELINE = [
    "parse",
    "validate",
    "normalise",
    "store",
]


def run(client, texts):
    return client.send("embed", texts, 30)


def unrelated():
    return 1
