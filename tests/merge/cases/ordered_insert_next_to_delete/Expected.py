PIPELINE = [
    "parse",
<<<<<<< ours
    "validate",
    "dedupe",
||||||| base
    "validate",
=======
>>>>>>> theirs
    "normalise",
    "store",
]


def run(client, texts):
    return client.send(
<<<<<<< ours
    "embed", "v2",
||||||| base
    "embed",
=======
>>>>>>> theirs
    texts, 30)


def unrelated():
    return 2
