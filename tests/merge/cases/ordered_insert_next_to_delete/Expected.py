<<<<<<< ours
PIPELINE = [
    "parse",
    "validate",
    "dedupe",
    "normalise",
    "store",
]
||||||| base
PIPELINE = [
    "parse",
    "validate",
    "normalise",
    "store",
]
=======
PIPELINE = [
    "parse",
    "normalise",
    "store",
]
>>>>>>> theirs


def run(client, texts):
<<<<<<< ours
    return client.send("embed", "v2", texts, 30)
||||||| base
    return client.send("embed", texts, 30)
=======
    return client.send(texts, 30)
>>>>>>> theirs


def unrelated():
    return 2
